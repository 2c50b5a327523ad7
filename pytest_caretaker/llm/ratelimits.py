"""Rate limits shared by every repair thread: a 429 from a provider backs off all the requests to
that provider (its API base), not only the one that got it, so concurrent repairs do not keep
hitting a provider that asked them to wait."""

from __future__ import annotations

import email.utils
import threading
import time


class RateLimits:
    """When each provider may be asked again after it answered 429: shared by every thread, so
    one rate limit backs off all the requests to that provider, not only the one that got it."""

    def __init__(self) -> None:
        #: provider -> (monotonic time it may be asked again, the thread that was told so)
        self._until: dict[tuple[str, str], tuple[float, int]] = {}
        self._lock = threading.Lock()

    def hold(self, provider: tuple[str, str], seconds: float) -> None:
        """Ask provider nothing for seconds (longer if it already asked for longer)."""
        until = time.monotonic() + seconds
        with self._lock:
            if until > self._until.get(provider, (0.0, 0))[0]:
                self._until[provider] = (until, threading.get_ident())

    def left(self, provider: tuple[str, str]) -> float:
        """Seconds before this thread may ask provider again because of another's 429 (the
        thread that got it waits what it was told on its own)."""
        with self._lock:
            until, told = self._until.get(provider, (0.0, 0))
        if told == threading.get_ident():
            return 0.0
        return max(0.0, until - time.monotonic())


#: The session's rate limits, by (provider, API base).
RATE_LIMITS = RateLimits()


def retry_after(error: BaseException) -> float | None:
    """Seconds the provider asked to wait (Retry-After: seconds or an HTTP date), if it did."""
    headers = getattr(error, "litellm_response_headers", None)
    if headers is None:
        headers = getattr(getattr(error, "response", None), "headers", None)
    value = headers.get("retry-after") if headers is not None else None
    if not value:
        return None
    value = str(value).strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
