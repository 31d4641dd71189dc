/**
 * The /docs page: Swagger UI reading /openapi.json. A TypeScript constant rather than an
 * .html file beside the code, so the compiled bundle (@pay/build) carries it.
 */
export const docsPage = (title: string): string => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${title} - API reference</title>
  <link rel="icon" href="data:,">
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="docs"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script>
    window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#docs', deepLinking: true, defaultModelsExpandDepth: 0 });
  </script>
</body>
</html>
`;
