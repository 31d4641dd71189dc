// SPDX-License-Identifier: MIT
// The devnet's tokens: OpenZeppelin's ERC20PresetMinterPauser with the decimals the real token
// has on its network (USDT: 6 on Ethereum, 18 on BSC). Compiled to devnet-token.json by
// `pnpm --filter crypto devnet:token` (solc-js, offline).
pragma solidity ^0.8.0;

import "@openzeppelin/contracts/token/ERC20/presets/ERC20PresetMinterPauser.sol";

contract DevnetToken is ERC20PresetMinterPauser {
    uint8 private immutable _decimals;

    constructor(string memory name, string memory symbol, uint8 decimals_) ERC20PresetMinterPauser(name, symbol) {
        _decimals = decimals_;
    }

    function decimals() public view override returns (uint8) {
        return _decimals;
    }
}
