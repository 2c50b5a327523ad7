"""``@heal``: wrap a function so that an exception it raises is recorded (record mode) or
repaired, proved, swapped in and retried (heal mode).

The wrapper of record mode is a countdown, a call and a ``try`` (free in CPython until something
raises), so it costs well under a microsecond (benchmarks/runtime.py); the few calls the
countdown picks are pickled for the sample of good calls (sample.py). ``off`` returns the
function itself. Everything else is imported by live.py when an exception has happened.
"""

from __future__ import annotations

import atexit
import functools
import pickle
import sys
import threading
import weakref
from collections.abc import Callable
from typing import Any, TypeVar, overload

from pytest_caretaker.runtime.mode import Store, resolve_mode
from pytest_caretaker.runtime.sample import Sample
from pytest_caretaker.runtime.sites import Retried, Site

F = TypeVar("F", bound=Callable[..., Any])


@overload
def heal(function: F, /) -> F: ...
@overload
def heal(
    *,
    id: str | None = None,
    description: str = "",
    mode: str | None = None,
    store: Store | None = None,
) -> Callable[[F], F]: ...
def heal(
    function: Any = None,
    /,
    *,
    id: str | None = None,
    description: str = "",
    mode: str | None = None,
    store: Store | None = None,
) -> Any:
    """Record, or in heal mode repair, the exceptions of function; ``@heal`` or
    ``@heal(id="invoice-total", description="…", mode="heal", store=my_db)``."""
    if function is None:
        return functools.partial(_wrap, id=id, description=description, mode=mode, store=store)
    return _wrap(function, id=id, description=description, mode=mode, store=store)


def _wrap(
    function: Any, *, id: str | None, description: str, mode: str | None, store: Store | None
) -> Any:
    chosen = resolve_mode(mode)
    if chosen == "off":
        return function
    if isinstance(function, (staticmethod, classmethod)):
        inner = _wrap(function.__func__, id=id, description=description, mode=mode, store=store)
        return type(function)(inner)
    if not callable(function) or not hasattr(function, "__code__"):
        raise TypeError(f"caretaker: @heal needs a function, not {type(function).__name__}")
    name = id or f"{function.__module__}:{function.__qualname__}"
    site = Site(function, name, description, chosen, store)
    wrapper = _coroutine(site) if site.coroutine else _plain(site)
    functools.update_wrapper(wrapper, function)
    wrapper.__caretaker__ = site  # type: ignore[attr-defined]
    return wrapper


def _plain(site: Site) -> Callable[..., Any]:
    call, sample = site.function, site.sample
    left = 0  # the calls to let pass before the next one the sample takes (sample.py)
    if site.mode == "heal":

        def healing(*args: Any, **kwargs: Any) -> Any:
            nonlocal left
            before = _snapshot(args, kwargs)  # the call as it came, before it changes anything
            if left:
                left -= 1
                try:
                    return call(*args, **kwargs)
                except Exception as error:
                    retried = failed(site, error, args, kwargs, before)
                    if retried is None:
                        raise
                    return retried.value
            left = sample.skip()
            return _taken(site, args, kwargs, before)

        return healing

    def recording(*args: Any, **kwargs: Any) -> Any:
        nonlocal left
        if left:
            left -= 1
            try:
                return call(*args, **kwargs)
            except Exception as error:
                failed(site, error, args, kwargs, None)
                raise
        left = sample.skip()
        return _taken(site, args, kwargs, None)

    return recording


def _taken(
    site: Site, args: tuple[Any, ...], kwargs: dict[str, Any], before: bytes | Exception | None
) -> Any:
    """A call the sample's countdown took: run as any other; when it returns, offered to the
    sample with its arguments as they came in (pickled before it runs: it may change them)."""
    came = before if before is not None else _snapshot(args, kwargs)
    try:
        result = site.function(*args, **kwargs)
    except Exception as error:
        retried = failed(site, error, args, kwargs, came)
        if retried is None:
            raise
        return retried.value  # what the fix returns is no evidence of the function as it was
    _offer(site, came, result)
    return result


def _coroutine(site: Site) -> Callable[..., Any]:
    call, sample = site.function, site.sample
    left = 0  # as in _plain

    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        nonlocal left
        taken = not left
        left = sample.skip() if taken else left - 1
        heals = site.mode == "heal"
        before = _snapshot(args, kwargs) if heals or taken else None
        try:
            result = await call(*args, **kwargs)
        except Exception as error:
            retried = None
            if heals:
                import asyncio

                loop = asyncio.get_running_loop()
                # The repair blocks for seconds: not on the loop, which goes on serving.
                proven = await loop.run_in_executor(None, fixed, site, error, args, kwargs, before)
                if proven:
                    try:
                        retried = Retried(await call(*args, **kwargs))
                    except Exception as again:
                        _raised_again(site, again)
            else:
                failed(site, error, args, kwargs, before)
            if retried is None:
                raise
            return retried.value
        if taken:
            _offer(site, before, result)
        return result

    return wrapper


def _offer(site: Site, came: bytes | Exception | None, result: Any) -> None:
    """Offer a good call to the sample; write the sample when it is due (sample.py)."""
    try:
        sample = site.sample
        if not sample.offer(came, result):
            return
        with _lock:
            if not _registered:
                atexit.register(_at_exit)
                _registered.append(True)
            _unwritten.add(sample)
        if sample.due() and sample.root is not None:
            from pytest_caretaker.runtime.goodcalls import write

            write(sample, sample.root)
    except Exception as trouble:  # caretaker's own trouble: one line, the call returns as it did
        print(f"caretaker: could not keep a good call of {site.id}: {trouble!r}", file=sys.stderr)


#: The samples that kept a call, written at exit. Weakly: a function made and dropped at run time
#: (a closure per request) takes its sample with it instead of piling them up till the exit.
_unwritten: weakref.WeakSet[Sample] = weakref.WeakSet()
_registered: list[bool] = []
_lock = threading.Lock()


def _at_exit() -> None:
    with _lock:
        samples = [sample for sample in _unwritten if sample.changed]
        _unwritten.clear()
    try:
        from pytest_caretaker.runtime.goodcalls import write_all

        write_all(samples)
    except Exception as trouble:  # caretaker's trouble is one line, never the program's
        print(f"caretaker: could not keep the good calls: {trouble!r}", file=sys.stderr)


def _snapshot(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bytes | Exception:
    try:
        return pickle.dumps((args, kwargs), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as error:  # anything a user's __reduce__ raises
        return error


def failed(
    site: Site,
    error: Exception,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    before: bytes | Exception | None,
) -> Retried | None:
    """Record the failure; in heal mode heal and retry. None: raise the exception as it was."""
    if not fixed(site, error, args, kwargs, before) or site.mode != "heal":
        return None
    try:
        return Retried(site.function(*args, **kwargs))
    except Exception as again:  # the proof's replay and this process differ (state, time)
        _raised_again(site, again)
        return None


def _raised_again(site: Site, again: Exception) -> None:
    print(
        f"caretaker: {site.id} was healed, but the call raised again when retried ({again!r}); "
        "the first exception is raised as it was",
        file=sys.stderr,
    )


def fixed(
    site: Site,
    error: Exception,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    before: bytes | Exception | None,
) -> bool:
    """Whether a proven fix is in place now (heal mode); the crash is recorded either way.
    caretaker's own trouble never changes what the program sees: it is one line on stderr."""
    try:
        from pytest_caretaker.runtime.live import failed as heal_failed

        return heal_failed(site, error, args, kwargs, before)
    except Exception as trouble:
        print(f"caretaker: could not record or heal {site.id}: {trouble!r}", file=sys.stderr)
        return False
