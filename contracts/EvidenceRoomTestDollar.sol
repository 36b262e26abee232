// SPDX-License-Identifier: MIT
// The stablecoin of Evidence Room's embedded development chain (docs/payments.md): OpenZeppelin's
// ERC-20 with six decimals, like USDC, and a mint that only its owner may call. It stands in for a
// real stablecoin on the local chain only; on any other chain `evroom serve --stablecoin ADDRESS`
// names the real token. Compiled by scripts/build-stablecoin.mjs into
// src-main/anchor/stablecoin-artifact.json.
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

contract EvidenceRoomTestDollar is ERC20, Ownable {
    constructor(address initialOwner) ERC20("Evidence Room Test Dollar", "erUSD") Ownable(initialOwner) {}

    /// Six decimals, as USDC: one dollar is 1,000,000 units.
    function decimals() public pure override returns (uint8) {
        return 6;
    }

    /// New units for `to`; the owner only (the service's development-chain account).
    function mint(address to, uint256 amount) external onlyOwner {
        _mint(to, amount);
    }
}
