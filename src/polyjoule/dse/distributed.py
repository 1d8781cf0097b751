"""Running a sweep's expensive parts on a Dask distributed cluster (``--scheduler ADDRESS``).

Only the parts that cost seconds go to the cluster: one formula derivation per mapping
(Barvinok) and the simulator runs that validate sampled points. Derivations come back as
plain formula JSON keyed by ``derivation_key`` and land in the local formula cache, so the
vectorised evaluation (milliseconds per million points) stays local and a re-run needs no
cluster at all. ``dask`` is an optional extra and is imported only here, only when used.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

from polyjoule.errors import MissingExtraError, SchedulerUnreachable
from polyjoule.model.pra import Kernel


def derive_task(kernel: Kernel, array: tuple[int, int], tile: tuple[int, ...] | None) -> dict[str, Any]:
    """Worker side: derive one mapping's formulas; returns ``{derivation_key: [formula JSON]}``."""
    from polyjoule.analysis.analyze import analyze
    from polyjoule.dse.cache import MemoryStore

    store = MemoryStore()
    analyze(kernel, array, tile, store=store)
    return store.data


def _client(address: str, timeout: float) -> Any:
    try:
        from distributed import Client
    except ImportError:
        raise MissingExtraError(
            "--scheduler needs Dask distributed: pip install 'polyjoule[dask]'") from None

    class QuietClient(Client):  # type: ignore[misc]
        """A client that failed to connect is closed here, quietly: left to its destructor
        it waits twice the timeout at exit and prints an ignored TimeoutError."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            try:
                super().__init__(*args, **kwargs)
            except BaseException:
                self.status = "closed"  # nothing to close: __del__ has nothing to wait for
                with contextlib.suppress(Exception):
                    self._loop_runner.stop()
                raise

    try:
        return QuietClient(address, timeout=f"{timeout}s", set_as_default=False)
    except (OSError, TimeoutError, ValueError) as e:
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise SchedulerUnreachable(
            f"--scheduler: cannot reach a Dask scheduler at {address} within {timeout:g} s ({msg})"
        ) from None


class LocalExecutor:
    """Runs tasks in this process, one after another (the default)."""

    def derive(self, kernel: Kernel, keys: Sequence[tuple[Any, ...]]) -> list[dict[str, Any]]:
        return [derive_task(kernel, a, t) for a, t in keys]

    def map(self, fn: Any, items: Sequence[Any]) -> list[Any]:
        return [fn(*it) for it in items]

    def close(self) -> None:
        return None


class DaskExecutor:
    """Runs tasks on a Dask cluster; ``address`` is ``tcp://host:port`` (or a Client)."""

    def __init__(self, address: Any, timeout: float = 5.0):
        if isinstance(address, str):
            self.client = _client(address, timeout)
            self._own = True
        else:
            self.client = address
            self._own = False
        self.address = getattr(self.client, "scheduler", None) and self.client.scheduler.address

    def derive(self, kernel: Kernel, keys: Sequence[tuple[Any, ...]]) -> list[dict[str, Any]]:
        futures = [self.client.submit(derive_task, kernel, a, t, pure=False) for a, t in keys]
        return list(self.client.gather(futures))

    def map(self, fn: Any, items: Sequence[Any]) -> list[Any]:
        futures = [self.client.submit(fn, *it, pure=False) for it in items]
        return list(self.client.gather(futures))

    def close(self) -> None:
        if self._own:
            self.client.close()


def executor_for(address: str | None, timeout: float = 5.0) -> LocalExecutor | DaskExecutor:
    """A Dask executor for ``address``, else local execution."""
    if address is None:
        return LocalExecutor()
    return DaskExecutor(address, timeout)
