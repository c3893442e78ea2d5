"""A polite HTTP client for the sources: one connection, a delay between requests, a
descriptive User-Agent, ``Retry-After`` honoured, backoff on dropped connections."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any

import httpx
import tenacity

from kg import __version__
from kg.errors import FetchError

__all__ = ["Politeness", "PoliteClient", "Transient", "user_agent"]


def user_agent(contact: str | None = None) -> str:
    """What kg says it is to every source: the tool, its version and, when given (the CLI
    reads ``--contact`` or ``KG_CONTACT``), an address the source's operators can write to."""
    who = f"; mailto:{contact}" if contact else ""
    return f"kg/{__version__} (knowledge-graph builder for ML paper abstracts{who})"


USER_AGENT = user_agent()

_RETRY_STATUS = {429, 500, 502, 503, 504}


@dataclass(frozen=True)
class Politeness:
    """How a source is asked: ``delay`` seconds between requests (arXiv asks for 3),
    ``retries`` after a failure, backoff starting at ``backoff`` seconds and doubling up to
    ``max_wait`` (a server's ``Retry-After`` is waited for as given, up to ``max_wait``)."""

    delay: float = 3.0
    retries: int = 5
    backoff: float = 5.0
    max_wait: float = 600.0
    timeout: float = 120.0
    user_agent: str = USER_AGENT


class Transient(Exception):
    """A failure worth asking again for: a 503 (or 429, 5xx), a dropped connection, a
    timeout, a page cut off. ``retry_after`` is the server's wish, in seconds."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def _retry_after(value: str | None, now: Callable[[], float]) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (seconds, or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        return max(parsedate_to_datetime(value).timestamp() - now(), 0.0)
    except (TypeError, ValueError):
        return None


class PoliteClient:
    """GET requests to one source, politely, over a single connection.

    ``sleep`` and ``clock`` are injectable, so tests check the waits without waiting.
    """

    def __init__(
        self,
        politeness: Politeness = Politeness(),
        *,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.politeness = politeness
        self.requests = 0
        self.retried = 0
        self._sleep = sleep
        self._clock = clock
        self._last: float | None = None
        self._client = httpx.Client(
            headers={"User-Agent": politeness.user_agent},
            timeout=politeness.timeout,
            limits=httpx.Limits(max_connections=1, max_keepalive_connections=1),
            follow_redirects=True,
            transport=transport,
        )

    def __enter__(self) -> PoliteClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection."""
        self._client.close()

    def _wait(self, seconds: float) -> None:
        if seconds > 0:
            self._sleep(seconds)

    def _once(self, url: str, params: dict[str, Any] | None, parse) -> Any:
        if self._last is not None:
            self._wait(self.politeness.delay - (self._clock() - self._last))
        self.requests += 1
        try:
            response = self._client.get(url, params=params)
        except (httpx.TransportError, httpx.DecodingError) as exc:
            raise Transient(f"{type(exc).__name__}: {exc}") from exc
        finally:
            self._last = self._clock()
        if response.status_code in _RETRY_STATUS:
            wait = _retry_after(response.headers.get("Retry-After"), time.time)
            raise Transient(f"HTTP {response.status_code}", retry_after=wait)
        if response.status_code != 200:
            raise FetchError(
                f"{response.url} answered HTTP {response.status_code}: "
                f"{response.text[:200].strip()}"
            )
        return parse(response.content) if parse is not None else response.content

    def _backoff(self, state: tenacity.RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        p = self.politeness
        if isinstance(exc, Transient) and exc.retry_after is not None:
            return min(exc.retry_after, p.max_wait)
        return min(p.backoff * 2 ** (state.attempt_number - 1), p.max_wait)

    def get(
        self,
        url: str,
        params: dict[str, Any] | None = None,
        *,
        parse: Callable[[bytes], Any] | None = None,
    ) -> Any:
        """Return the body of ``GET url?params`` (or ``parse(body)``), retrying what
        :class:`Transient` covers, including a ``parse`` that raises it for a body that
        arrived but is not a whole answer (a page cut off by a proxy); raise
        :class:`FetchError` when the retries are spent or the answer is an error."""

        def before_sleep(state: tenacity.RetryCallState) -> None:
            self.retried += 1

        retrying = tenacity.Retrying(
            stop=tenacity.stop_after_attempt(self.politeness.retries + 1),
            wait=self._backoff,
            retry=tenacity.retry_if_exception_type(Transient),
            sleep=self._sleep,
            before_sleep=before_sleep,
            reraise=True,
        )
        try:
            return retrying(self._once, url, params, parse)
        except Transient as exc:
            query = f"?{httpx.QueryParams(params)}" if params else ""
            raise FetchError(
                f"{url}{query}: {exc} (gave up after {self.politeness.retries + 1} tries)"
            ) from exc
