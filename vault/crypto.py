"""Field encryption (Fernet, rotating key list) and keyed blind indexes for encrypted values."""

from __future__ import annotations

import hashlib
import hmac
from functools import lru_cache

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings


@lru_cache(maxsize=1)
def _fernet(keys: tuple[str, ...]) -> MultiFernet:
    return MultiFernet([Fernet(key.strip().encode()) for key in keys])


def fernet() -> MultiFernet:
    return _fernet(tuple(settings.FIELD_ENCRYPTION_KEYS))


def encrypt(plain: str) -> str:
    return fernet().encrypt(plain.encode()).decode()


def encrypt_bytes(plain: bytes) -> str:
    """A file's bytes as a Fernet token (the token is base64: 4/3 the file, not 16/9 as a token of its base64)."""
    return fernet().encrypt(plain).decode()


def decrypt_bytes(token: str) -> bytes:
    try:
        return fernet().decrypt(token.encode())
    except InvalidToken as exc:
        raise ValueError("encrypted value cannot be read with the configured FIELD_ENCRYPTION_KEYS") from exc


def decrypt(token: str) -> str:
    try:
        return fernet().decrypt(token.encode()).decode()
    except InvalidToken as exc:  # never echo the token: it is ciphertext of an account number
        raise ValueError("encrypted value cannot be read with the configured FIELD_ENCRYPTION_KEYS") from exc


def rotate(token: str) -> str:
    """Re-encrypt under the newest key (first in FIELD_ENCRYPTION_KEYS)."""
    return fernet().rotate(token.encode()).decode()


def blind_index(*parts: str) -> str:
    """HMAC-SHA256 of the parts under BLIND_INDEX_KEY: equality lookups without decrypting."""
    message = "\x1f".join(parts).encode()
    return hmac.new(settings.BLIND_INDEX_KEY.encode(), message, hashlib.sha256).hexdigest()


def card_number_hash(card_number: str) -> str:
    return blind_index("card", card_number)


def request_fingerprint(canonical: str) -> str:
    """HMAC-SHA256 under IDEMPOTENCY_HASH_KEY: equal requests compare equal, and nobody holding only the
    database can test a guessed body against it."""
    return hmac.new(settings.IDEMPOTENCY_HASH_KEY.encode(), canonical.encode(), hashlib.sha256).hexdigest()


def account_pair_hash(routing_number: str, account_number: str) -> str:
    """Duplicate detection for saved methods (CONTRACT 5): the same routing + account is the same account."""
    return blind_index("pair", routing_number, account_number)


def account_number_hash(account_number: str) -> str:
    """Equality lookups on a transaction's account number (reporting `accountnumber:eq`)."""
    return blind_index("account", account_number)


def unpadded_account_hash(account_number: str) -> str | None:
    """account_number_hash of the number without its leading zeros, when it has some; None when it has none (the
    key is then account_number_hash itself). Banks ignore leading zeros, so 088880001 and 88880001 are one account to
    the debit rules (CONTRACT 12: re-initiation and account blocks); the key to compare on is
    `unpadded_account_hash or account_number_hash` (in SQL, COALESCE of the two columns)."""
    unpadded = account_number.lstrip("0")
    if unpadded == account_number:
        return None
    return account_number_hash(unpadded or "0")
