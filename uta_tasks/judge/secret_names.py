"""Which names hold a credential: the one rule behind redaction (:mod:`.redact`) and the judge
URL check (:mod:`.urls`), so that what is masked and what is refused never disagree.

A name (a dict key, a query parameter, a header, the ``name`` of ``name=value`` in a string)
is first split into words, whatever its spelling: ``X-Amz-Signature``, ``x_amz_signature``,
``xAmzSignature`` and ``X%2DAmz%2DSignature`` all read as ``x amz signature``. It names a
secret when

- one of its words is a *secret word* (:data:`SECRET_WORDS`: ``password``, ``passphrase``,
  ``jwt``, ``secret``, ``credential``, ``signature``, ``authorization``, ``cookie``...),
- or its **last** word is a *secret tail* (:data:`SECRET_TAILS`: ``key``, ``token``,
  ``auth``, ``pass``, ``pw``, ``pwd``, ``sig``, ``session``...), counted only at the end so that
  ``genuine_pass_at_k``, ``pass2_context`` and ``token_limit`` stay readable,
- or the words run together contain a secret word or end with a secret tail
  (``apikey``, ``xcustomauth``, ``mypassword``, ``hftoken``),

unless it is a harmless name: its last word is ``env`` (``judge_api_key_env`` names an
environment variable, never holds its value), or it names a tokenizer's special token
(``pad_token``, ``tokenizer_eos_token``, ``think_end_token``: :data:`SPECIAL_TOKENS`).

URL query parameters and HTTP headers are judged the other way round, by allow-list: every
query value and every header value is a secret unless its name is on
:data:`HARMLESS_QUERY_KEYS` or :data:`HARMLESS_HEADERS`.
"""

from __future__ import annotations

import re
from functools import lru_cache
from urllib.parse import unquote_plus

# a word of these anywhere in a name: the name holds a credential
SECRET_WORDS = frozenset({
    "password", "passwd", "passphrase", "passcode", "jwt", "secret", "secrets", "credential", "credentials",
    "cred", "creds", "signature", "authorization", "authentication", "cookie", "cookies", "bearer", "apikey",
    "privatekey", "sessionid", "oauth",
})
# the last word of these: ``api_key``, ``access_token``, ``x_auth``, ``db_pass``, ``sig``
SECRET_TAILS = frozenset({"key", "token", "auth", "pass", "pw", "pwd", "sig", "session", "sas", "otp", "pin"})
# a tokenizer's special tokens are named like credentials: ``pad_token``, ``tokenizer_eos_token``,
# ``think_end_token`` (a word of these just before a last word ``token``) hold none
SPECIAL_TOKENS = frozenset({"pad", "eos", "bos", "unk", "sep", "cls", "mask", "eot", "stop", "end", "start"})
# query parameters whose value is kept (Azure's ``api-version``, a model revision); compared
# without separators, lower case. Every other query value is masked.
HARMLESS_QUERY_KEYS = frozenset({"apiversion", "version", "revision"})
# headers whose value is kept; compared lower case. Every other header value is masked.
HARMLESS_HEADERS = frozenset({
    "accept", "accept-encoding", "accept-language", "cache-control", "connection", "content-type",
    "content-length", "host", "user-agent",
})
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SEPARATORS = re.compile(r"[^a-z0-9]+")


def words(name: str) -> tuple[str, ...]:
    """The lower-case words of a name: split at separators, camelCase and URL escapes.

    Args:
        name: a key as written (``X-Amz-Signature``, ``apiKey``, ``api%5Fkey``).
    """
    if "%" in name or "+" in name:
        name = unquote_plus(name)
    return tuple(word for word in _SEPARATORS.split(_CAMEL.sub(" ", name).lower()) if word)


@lru_cache(maxsize=4096)
def is_secret_name(name: str) -> bool:
    """True when a value under this name must be masked (the module's rule).

    Args:
        name: a dict key, query parameter, header or setting name.
    """
    parts = words(name)
    if not parts or parts[-1] == "env":
        return False
    if parts[-1] == "token" and len(parts) > 1 and parts[-2] in SPECIAL_TOKENS:
        return False
    joined = "".join(parts)
    if parts[-1] in SECRET_TAILS or any(part in SECRET_WORDS for part in parts):
        return True
    return any(word in joined for word in SECRET_WORDS) or joined.endswith(tuple(SECRET_TAILS - {"pin", "sas"}))


def is_harmless_query_key(name: str) -> bool:
    """True when a URL query parameter's value may be shown (:data:`HARMLESS_QUERY_KEYS`).

    Args:
        name: the parameter as written (``api-version``).
    """
    return "".join(words(name)) in HARMLESS_QUERY_KEYS


def is_harmless_header(name: str) -> bool:
    """True when an HTTP header's value may be shown (:data:`HARMLESS_HEADERS`).

    Args:
        name: the header as written (``Content-Type``).
    """
    return "-".join(words(name)) in HARMLESS_HEADERS


def is_headers_name(name: str) -> bool:
    """True for a key that holds HTTP headers (``headers``, ``judge_headers``, ``extraHeaders``).

    Args:
        name: a dict key or setting name.
    """
    parts = words(name)
    return bool(parts) and parts[-1] in ("headers", "header")
