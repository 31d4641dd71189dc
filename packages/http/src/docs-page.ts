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
  <link rel="stylesheet" href="/docs/phone.css">
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

/**
 * What Swagger UI's own stylesheet lacks on a phone: a response's table (its headers and the
 * examples of each error code) is held to the screen's width, long words wrapping, instead of
 * pushing the page sideways.
 */
export const DOCS_PHONE_CSS = `.swagger-ui .responses-table { table-layout: fixed; width: 100%; }
.swagger-ui .responses-table .response-col_status { width: 4.5em; }
.swagger-ui .responses-table .response-col_links { width: 4em; }
.swagger-ui .responses-table td, .swagger-ui .responses-table table, .swagger-ui .response-col_description * { overflow-wrap: anywhere; max-width: 100%; }
.swagger-ui .responses-table select { max-width: 100%; }
.swagger-ui .info pre, .swagger-ui .info code { white-space: pre-wrap; overflow-wrap: anywhere; }
`;
