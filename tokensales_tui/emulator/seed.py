"""Deterministic demo data: webhooks, items, assets and collections for one seed.

The data is meant to exercise a UI: a title over 120 characters, Japanese, Arabic,
Hebrew, Cyrillic and Greek text, emoji, square brackets that look like markup, and a
description holding an ANSI escape and a bidi override. Items are built from a few
precomputed payout and contract-function objects which items share (the emulator
never mutates an item in place), so that 100,000 items take a fraction of a second.
"""

from __future__ import annotations

import calendar
import random
import re
import time
from dataclasses import dataclass
from typing import Any

from .addresses import checksum, evm_from_bytes, solana_from_bytes

#: Seeded timestamps lie within 200 days before this instant (2025-11-21T09:14:53Z).
SEED_EPOCH = calendar.timegm((2025, 11, 21, 9, 14, 53, 0, 0, 0))
_CDN = "https://cdn.tokensales-demo.io/items/"


def iso_utc(moment: float) -> str:
    """``moment`` (seconds since the epoch) as ISO 8601 UTC, e.g. ``2026-11-21T09:14:53Z``."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(moment))


@dataclass(slots=True)
class SeedData:
    """The starting state of an emulator, keyed by id (in listing order)."""

    webhooks: dict[str, dict[str, Any]]
    items: dict[str, dict[str, Any]]
    assets: dict[str, dict[str, Any]]
    collections: dict[str, dict[str, Any]]


def generate(seed: int, *, items: int = 40) -> SeedData:
    """The demo data for ``seed``; the same seed always gives the same data."""
    rng = random.Random(f"tokensales-emulator-seed:{seed}")
    assets = _assets(rng)
    return SeedData(
        webhooks=_webhooks(rng),
        items=_items(rng, items, assets),
        assets=assets,
        collections=_collections(rng),
    )


def new_id(rng: random.Random, prefix: str, taken: dict[str, Any]) -> str:
    """A fresh ``prefix`` + 12 hex digits id not among ``taken``."""
    while True:
        candidate = f"{prefix}{rng.getrandbits(48):012x}"
        if candidate not in taken:
            return candidate


def _moment(rng: random.Random) -> int:
    return SEED_EPOCH - rng.randrange(200 * 86400)


def _evm(rng: random.Random) -> str:
    return evm_from_bytes(rng.randbytes(20))


# --- webhooks ----------------------------------------------------------------------

_EVENTS = (
    "item.sold",
    "item.created",
    "item.deleted",
    "payment.succeeded",
    "payment.failed",
    "payment.refunded",
    "payout.completed",
    "payout.failed",
    "token.minted",
    "token.transferred",
    "checkout.session.completed",
    "checkout.session.expired",
    "collection.created",
)
_WEBHOOK_URLS = (
    ("https://api.aurora-games.io/webhooks/tokensales", True),
    ("https://hooks.zapier.com/hooks/catch/4839201/b7k2q9x/", True),
    ("https://shop.nebula-mart.com/api/v2/events/token-sales?source=tss", False),
    ("https://webhook.site/3f6c9a2e-8d41-4b7e-9c15-2a7e6d0f4b19", True),
    ("https://ops.cafe-lumiere.fr/integrations/tokens", True),
    ("https://eu-west-1.events.pixelpets.gg/ingest", False),
    ("https://hooks.slack.com/services/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", True),
    ("http://localhost:4000/dev/webhooks", False),
    (
        "https://very-long-subdomain-for-truncation.staging.marketplace.example-enterprise-"
        "client.com/api/v1/integrations/token-sales/webhooks/receive?tenant=acme-global"
        "&region=ap-southeast-2",
        True,
    ),
    ("https://例え.jp/フック/受信", True),
)


def _webhooks(rng: random.Random) -> dict[str, dict[str, Any]]:
    webhooks: dict[str, dict[str, Any]] = {}
    for url, active in _WEBHOOK_URLS:
        created = _moment(rng)
        webhook: dict[str, Any] = {
            "id": new_id(rng, "wh_", webhooks),
            "url": url,
            "isActive": active,
            "events": rng.sample(_EVENTS, rng.randint(1, 5)),
            "createdAt": iso_utc(created),
            "lastUpdatedAt": iso_utc(min(SEED_EPOCH, created + rng.randrange(30 * 86400))),
        }
        if rng.random() < 0.6:
            webhook["secret"] = f"whsec_{rng.randbytes(16).hex()}"
        webhooks[webhook["id"]] = webhook
    return webhooks


# --- assets ------------------------------------------------------------------------

# name, symbol, blockchainId, decimals, type, contract address (None: native; "": generated)
_ASSETS: tuple[tuple[str, str, str, int, str, str | None], ...] = (
    ("USD Coin", "USDC", "polygon", 6, "ERC20", "0x3c499c542cef5e3811e1192ce70d8cc03d5c3359"),
    ("USD Coin", "USDC", "ethereum", 6, "ERC20", "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"),
    ("USD Coin", "USDC", "base", 6, "ERC20", "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913"),
    ("Tether USD", "USDT", "ethereum", 6, "ERC20", "0xdac17f958d2ee523a2206206994597c13d831ec7"),
    (
        "Dai Stablecoin",
        "DAI",
        "ethereum",
        18,
        "ERC20",
        "0x6b175474e89094c44da98b954eedeac495271d0f",
    ),
    ("Wrapped Ether", "WETH", "base", 18, "ERC20", "0x4200000000000000000000000000000000000006"),
    ("Ether", "ETH", "ethereum", 18, "native", None),
    ("Polygon", "MATIC", "polygon", 18, "native", None),
    ("Solana", "SOL", "solana", 9, "native", None),
    ("Aurora Founders Pass", "AFP", "polygon", 0, "ERC721", ""),
    ("東京 Metro Pass", "TMP", "base", 0, "ERC1155", ""),
    ("Arena Gems 💎", "GEM", "polygon", 18, "ERC20", ""),
)


def _assets(rng: random.Random) -> dict[str, dict[str, Any]]:
    assets: dict[str, dict[str, Any]] = {}
    for name, symbol, chain, decimals, kind, known in _ASSETS:
        asset_id = new_id(rng, "ast_", assets)
        address = known and checksum(known)
        if address == "":
            address = _evm(rng)
        assets[asset_id] = {
            "id": asset_id,
            "name": name,
            "symbol": symbol,
            "blockchainId": chain,
            "decimals": decimals,
            "type": kind,
            "contractAddress": address,
            "createdAt": iso_utc(_moment(rng)),
        }
    return assets


# --- items -------------------------------------------------------------------------

# title, description, market: "fiat" prices in USD/EUR/GBP/JPY, "crypto" in USDC/ETH/MATIC/SOL
_PRODUCTS: tuple[tuple[str, str, str], ...] = (
    (
        "Aurora Founders Pass",
        "Lifetime access to every Aurora season and the founders' Discord.",
        "crypto",
    ),
    (
        "Nebula Drift — Season 3 Battle Pass",
        "Unlocks 100 tiers of cosmetics and two exclusive ships.",
        "fiat",
    ),
    (
        "Limited [Gold] Edition Genesis Key",
        "One of 500 keys minted at launch. Grants early access to drops.",
        "crypto",
    ),
    (
        "[b]not bold[/b] Collector's Crate",
        "A crate whose name looks like markup; it must show literally.",
        "fiat",
    ),
    ("東京ナイトマーケット限定パス", "夜市の限定デジタルパス。先着1,000名様。", "fiat"),
    ("مجموعة الصقر الذهبي", "مجموعة رقمية محدودة من الصقور الذهبية.", "crypto"),
    ("Коллекция «Северное сияние»", "Цифровые открытки с северным сиянием над Мурманском.", "any"),
    (
        "🚀 Moonshot Launch Ticket",
        "Boarding pass for the Moonshot community launch event 🌕.",
        "crypto",
    ),
    (
        "The Extraordinarily Comprehensive Annual Collector's Anthology of Hand-Painted Digital "
        "Landscapes, Volume IV: Coastal Mornings and Mountain Evenings (Deluxe Edition)",
        "Forty-eight hand-painted landscapes in 8K, with the artist's commentary.\n"
        "Second line of a multi-line description.",
        "any",
    ),
    (
        "Pixel Pets 🐾 Starter Egg",
        "Hatches into one of 12 pixel pets. Which one? Nobody knows.",
        "crypto",
    ),
    (
        "Claim [@click=app.quit]free[/] tokens",
        "A title that is an action link if read as markup.",
        "fiat",
    ),
    ("Arena Gems × 500", "500 in-game gems for Arena Clash.", "fiat"),
    ("Arena Gems × 2,500", "2,500 in-game gems, 10% bonus included.", "fiat"),
    ("Skyline Concert VIP Access", "Front-row access and a backstage meet-and-greet.", "any"),
    ("Café Lumière Loyalty Token", "Redeem for a free drink at any Café Lumière in Paris.", "fiat"),
    ("Ψηφιακό Μουσείο: Είσοδος", "Ψηφιακό εισιτήριο εισόδου για το μουσείο.", "fiat"),
    (
        "Seoul Street Art #12 — 서울",
        "A mural from Hongdae, photographed and minted by the artist.",
        "crypto",
    ),
    (
        "Hackathon 2025 Participant Badge",
        "Proof of participation, soulbound to the holder's wallet.",
        "crypto",
    ),
    (
        "Carbon Offset Certificate (1 tCO₂e)",
        "Retires one tonne of verified carbon credits on purchase.",
        "any",
    ),
    ("Mystic Forest Land Plot 42×17", "A 16×16 plot in the Mystic Forest district.", "crypto"),
    ("Retro Racer: Chrome Livery", "A chrome livery for every car in Retro Racer.", "fiat"),
    ("Dragon Egg 🐉 (Mythic)", "Mythic rarity. Hatch time: 72 hours.", "crypto"),
    (
        "Weekend Pass — Berlin Tech Week",
        "Two days of talks and workshops at Berlin Tech Week.",
        "fiat",
    ),
    (
        "Membership: Gold Tier (12 months)",
        "Gold membership: discounts, early drops, priority support.",
        "fiat",
    ),
    ("Soundwave Stems Vol. 2", "Twelve royalty-free stems with commercial licence.", "any"),
    (
        "Bundle a [/] b",
        "Brackets that close nothing: \x1b[31mred?\x1b[0m and \u202eesrever\u202c text.",
        "fiat",
    ),
    ("Ocean Cleanup Supporter Badge 🌊", "Each badge funds 10 kg of ocean plastic removal.", "any"),
    ("Zürich Marathon Finisher Medal", "Digital finisher medal with your official time.", "fiat"),
    (
        "Chess Masters Opening Book",
        "A playable opening book annotated by three grandmasters.",
        "crypto",
    ),
    ("Starlight Skins Pack", "Eight character skins that glow in night maps.", "fiat"),
    ("हिंदी संगीत महोत्सव पास", "तीन दिन का संगीत महोत्सव पास।", "fiat"),
    ("Premium API Credits (10k)", "10,000 API credits, valid for one year.", "fiat"),
    ("Founders Club Key #001", "The first key of the Founders Club.", "crypto"),
    ("Lunar New Year 🧧 Red Envelope", "Contains a random amount of Arena Gems.", "any"),
    ("Indie Game Early Access", "Play the beta three months before release.", "fiat"),
    ("Ticket — Amsterdam Dance Event", "Entry to all ADE night events.", "fiat"),
    ("Community Governance Token", "One vote in the community treasury proposals.", "crypto"),
    ("שער הזהב Collection", "אוסף דיגיטלי של שערי ירושלים.", "crypto"),
    (
        "Sunset Boulevard Photo Print",
        "Limited print run of 50, signed by the photographer.",
        "fiat",
    ),
    ("Alpine Ski Resort Season Pass", "Unlimited lift access for the 2025/26 season.", "fiat"),
)

# currency, lowest price, highest price, decimals
_Price = tuple[str, float, float, int]
_PRICES: dict[str, tuple[_Price, ...]] = {
    "fiat": (("USD", 1, 500, 2), ("EUR", 1, 450, 2), ("GBP", 1, 400, 2), ("JPY", 150, 60000, 0)),
    "crypto": (
        ("USDC", 1, 500, 2),
        ("ETH", 0.005, 2.5, 4),
        ("MATIC", 1, 900, 2),
        ("SOL", 0.05, 40, 3),
    ),
}
_PRICES["any"] = _PRICES["fiat"] + _PRICES["crypto"]

# blockchainId, signature, parameter names, fixed parameters, state mutability
_FUNCTIONS: tuple[tuple[str, str, tuple[str, ...], dict[str, Any], str], ...] = (
    ("polygon", "mintTo(address,uint256)", ("to", "quantity"), {"quantity": 1}, "payable"),
    ("ethereum", "safeMint(address)", ("to",), {}, "nonpayable"),
    (
        "base",
        "claim(address,uint256,uint256)",
        ("receiver", "tokenId", "quantity"),
        {"tokenId": 3, "quantity": 1},
        "payable",
    ),
    (
        "polygon",
        "purchase(uint256,address)",
        ("listingId", "buyer"),
        {"listingId": 1842},
        "payable",
    ),
    (
        "arbitrum",
        "mint(address,uint256,uint256,bytes)",
        ("to", "id", "amount", "data"),
        {"id": 7, "amount": 1, "data": "0x"},
        "nonpayable",
    ),
    (
        "base",
        "buyTokens(address,uint256)",
        ("beneficiary", "amount"),
        {"amount": "1000000000000000000"},
        "payable",
    ),
    ("solana", "mint_to(publicKey,u64)", ("recipient", "amount"), {"amount": 1}, "nonpayable"),
)


def _contract_functions(rng: random.Random) -> list[dict[str, Any]]:
    functions = []
    for chain, signature, names, fixed, mutability in _FUNCTIONS:
        name, _, rest = signature.partition("(")
        types = rest.rstrip(")").split(",")
        abi = [
            {
                "type": "function",
                "name": name,
                "inputs": [{"name": n, "type": t} for n, t in zip(names, types, strict=True)],
                "outputs": [],
                "stateMutability": mutability,
            }
        ]
        address = solana_from_bytes(rng.randbytes(32)) if chain == "solana" else _evm(rng)
        functions.append(
            {
                "functionSignature": signature,
                "fixedFunctionParams": fixed,
                "contract": {"address": address, "blockchainId": chain, "abi": abi},
            }
        )
    return functions


def _payouts(
    rng: random.Random, assets: dict[str, dict[str, Any]]
) -> dict[str, list[dict[str, Any]]]:
    def account() -> str:
        alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
        return "acct_1Nv" + "".join(rng.choices(alphabet, k=13))

    usdc = {a["blockchainId"]: a["id"] for a in assets.values() if a["symbol"] == "USDC"}
    free = {"type": "free"}
    fiat = [{"type": "fiat", "paymentProviderConnectedAccountId": account()} for _ in range(2)]
    stable = [
        {"type": "stablecoin", "blockchainId": chain, "assetId": usdc[chain], "spender": _evm(rng)}
        for chain in ("polygon", "base")
    ]
    by_currency: dict[str, list[dict[str, Any]]] = {
        c: [free, *fiat] for c in ("USD", "EUR", "GBP", "JPY")
    }
    by_currency["USDC"] = [*stable, free]
    for currency, chain in (("ETH", "ethereum"), ("MATIC", "polygon"), ("SOL", "solana")):
        by_currency[currency] = [{"type": "native", "blockchainId": chain}, free]
    return by_currency


def _items(
    rng: random.Random, count: int, assets: dict[str, dict[str, Any]]
) -> dict[str, dict[str, Any]]:
    payouts = _payouts(rng, assets)
    functions = _contract_functions(rng)
    products = [
        (title, description, _image_url(title, k), _PRICES[market])
        for k, (title, description, market) in enumerate(_PRODUCTS)
    ]
    order = list(range(len(products)))
    rng.shuffle(order)
    items: dict[str, dict[str, Any]] = {}
    random_, choice, bits = rng.random, rng.choice, rng.getrandbits
    for i in range(count):
        round_, slot = divmod(i, len(order))
        title, description, image_url, prices = products[order[slot]]
        currency, low, high, digits = choice(prices)
        price: float = round(low + (high - low) * random_(), digits)
        item_id = f"itm_{bits(48):012x}"
        while item_id in items:
            item_id = f"itm_{bits(48):012x}"
        item: dict[str, Any] = {
            "id": item_id,
            "title": f"{title} #{round_ + 1}" if round_ else title,
            "currency": currency,
            "price": int(price) if digits == 0 else price,
            "description": description,
            "imageUrl": image_url,
            "payout": choice(payouts[currency]),
        }
        # Some items sell in-platform tokens and call no contract.
        if random_() < 0.85:
            item["contractFunction"] = choice(functions)
        items[item_id] = item
    return items


def _image_url(title: str, index: int) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:48].rstrip("-")
    return f"{_CDN}{slug or f'item-{index}'}.png"


# --- collections -------------------------------------------------------------------

_COLLECTIONS = (
    ("Aurora Founders Pass", "polygon", "true"),
    ("東京 Metro Pass", "base", "true"),
    ("Genesis [Gold] Keys", "ethereum", "false"),
    ("Pixel Pets 🐾", "polygon", "true"),
    ("Солнечный токен", "arbitrum", "false"),
    ("Sol Surfers", "solana", "true"),
)
_EMAILS = (
    "yuki.tanaka@example.jp",
    "m.alrashid@example.ae",
    "ops+whitelist@aurora-games.io",
    "ivan.petrov@example.ru",
    "anna.schmidt@example.de",
    "lucas.martin@cafe-lumiere.fr",
    "priya.sharma@example.in",
    "collector.42@pixelpets.gg",
)


def _collections(rng: random.Random) -> dict[str, dict[str, Any]]:
    collections: dict[str, dict[str, Any]] = {}
    for name, chain, whitelisted in _COLLECTIONS:

        def address(chain: str = chain) -> str:
            return solana_from_bytes(rng.randbytes(32)) if chain == "solana" else _evm(rng)

        wallets = [address() for _ in range(rng.randint(1, 5) if whitelisted == "true" else 0)]
        emails = rng.sample(_EMAILS, rng.randint(1, 3)) if whitelisted == "true" else []
        collection_id = new_id(rng, "col_", collections)
        collections[collection_id] = {
            "id": collection_id,
            "name": name,
            "blockchain": chain,
            "contractAddress": address(),
            "whitelisted": whitelisted,
            "whitelistingInfo": {"list": {"wallets": wallets}, "emails": emails},
        }
    return collections
