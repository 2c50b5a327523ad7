"""How often and how long to retry a request, from a settings dictionary."""

DEFAULTS = {"retries": 3, "timeout": 10.0, "backoff": 2.0}


def timeout(settings):
    return settings.get("timeout", DEFAULTS["timeout"])


def retries(settings):
    """The number of retries: settings["retries"], else the default."""
    return settings.get("retry", DEFAULTS["retries"])


def delays(settings):
    """The wait before each retry: 1 s, then times the backoff each time."""
    backoff = settings.get("backoff", DEFAULTS["backoff"])
    return [backoff**attempt for attempt in range(retries(settings))]
