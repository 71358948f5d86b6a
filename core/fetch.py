"""Fetch engine: tiles an area, fetches tiles concurrently, tallies credits and merges results."""

from __future__ import annotations

import logging
import time
from collections import deque
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Callable, Dict, Generic, Iterable, List, Optional, Sequence, Tuple, TypeVar

from .area import QueryArea
from .cache import ResponseCache
from .cancel import CancelToken
from .data_client import DataClient, check_map_data
from .errors import (
    AuthError,
    BudgetExceeded,
    FetchCancelled,
    FleetStreetError,
    InvalidResponseError,
    OutOfCreditsError,
    PartialFetchError,
)
from .models import FeaturesPage, Frame, ImageryPage, MapDataResult, MapFeature
from .signed_urls import renew_stale
from .tiling import Tile, tile_area
from .weeks import week_monday

log = logging.getLogger(__name__)

T = TypeVar("T")
#: Requests in flight when the profile sets none: hides latency without inviting throttling.
DEFAULT_CONCURRENCY = 4
BURST_PRICE = 125.0
_FATAL = (AuthError, OutOfCreditsError)


@dataclass
class FetchProgress:
    """Progress report passed to the progress callback."""

    tiles_done: int
    tiles_total: int
    objects: int
    credits_used: float
    message: str = ""

    @property
    def fraction(self) -> float:
        """Share of tiles done, 0..1."""
        return self.tiles_done / self.tiles_total if self.tiles_total else 1.0


@dataclass
class FetchResult(Generic[T]):
    """Merged objects of a multi-tile fetch and what it cost."""

    items: List[T] = field(default_factory=list)
    tiles_total: int = 0
    tiles_fetched: int = 0
    tiles_from_cache: int = 0
    credits_used: float = 0.0
    credits_remaining: Optional[float] = None
    balance_before: Optional[float] = None
    cancelled: bool = False
    #: Indices of the requests that failed after every retry (tile, or tile × week).
    failed_tiles: List[int] = field(default_factory=list)
    #: Sentences worth showing the user about how the fetch went (e.g. budget overrun).
    notes: List[str] = field(default_factory=list)
    #: Seconds spent reading the balance (before and after) and sending the tile requests.
    timings: Dict[str, float] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        """True when every tile was fetched (from the API or the cache)."""
        return not self.cancelled and self.tiles_fetched + self.tiles_from_cache >= self.tiles_total


@dataclass
class FetchEstimate:
    """What a fetch will take: requests always, credits when the price is knowable."""

    tiles: int
    requests: int
    area_km2: float
    credits: Optional[float] = None
    note: str = ""


@dataclass
class _Job:
    index: int
    tile: Tile
    path: str
    body: Any
    params: Dict[str, Any]
    week: Optional[date] = None


@dataclass
class _Outcome:
    job: _Job
    body: Any
    from_cache: bool
    parsed: Any = None


class FetchEngine:
    """Runs the tile requests of a fetch concurrently over one client's connection pool.

    `budget` caps the credits of a fetch, with one exception: the price of a request is
    learnt from its answer, so the first request is always sent alone and may by itself
    cost more than a small budget; the result's `notes` (or the BudgetExceeded message)
    then say so. `refresh=True` ignores cached answers (fresh ones are still stored).
    """

    def __init__(self, client: DataClient, cache: Optional[ResponseCache] = None,
                 concurrency: Optional[int] = None,
                 progress: Optional[Callable[[FetchProgress], None]] = None,
                 cancel: Optional[CancelToken] = None, budget: Optional[float] = None,
                 max_km2: float = 4.5, refresh: bool = False) -> None:
        self.client = client
        self.cache = cache
        self.refresh = refresh
        self.concurrency = max(1, int(concurrency or client.profile.concurrency
                                      or DEFAULT_CONCURRENCY))
        self.progress = progress
        self.cancel = cancel or client.cancel
        self.budget = budget
        self.max_km2 = max_km2

    # -- public fetches -------------------------------------------------------------------

    def map_features(self, area: QueryArea, classes: Optional[Iterable[str]] = None,
                     min_confidence: Optional[float] = None) -> FetchResult[MapFeature]:
        """Map features of the area (from /mapFeatures/poly), filtered and deduplicated."""
        jobs = [_Job(t.index, t, "/mapFeatures/poly", t.geojson, {}) for t in self.tiles(area)]
        outcomes, result, error = self._run(jobs, "map features")
        wanted = set(classes) if classes else None
        items = self._merge_features((o.parsed for o in outcomes), area, wanted,
                                     min_confidence)
        return self._finish(result, items, error)

    def latest_imagery(self, area: QueryArea, headings: bool = True) -> FetchResult[Frame]:
        """Most recent frames of the area (from /latest/poly), deduplicated."""
        params = {"headings": "true"} if headings else {}
        jobs = [_Job(t.index, t, "/latest/poly", t.geojson, dict(params))
                for t in self.tiles(area)]
        outcomes, result, error = self._run(jobs, "latest imagery")
        items = self._merge_frames((o.parsed for o in outcomes), area)
        return self._finish(result, items, error)

    def imagery_by_week(self, area: QueryArea, weeks: Sequence[date]) -> FetchResult[Frame]:
        """Frames of the area for each ISO week (one request per tile and week)."""
        mondays = sorted({week_monday(w) for w in weeks})
        if not mondays:
            from .errors import ValidationError

            raise ValidationError("At least one week is required")
        tiles = self.tiles(area)
        jobs = []
        for monday in mondays:
            for t in tiles:
                jobs.append(_Job(len(jobs), t, "/imagery/poly", t.geojson,
                                 {"week": monday.isoformat()}, week=monday))
        outcomes, result, error = self._run(jobs, "weekly imagery")
        items = self._merge_frames((o.parsed for o in outcomes), area, by_week=True)
        return self._finish(result, items, error)

    def map_data(self, area: QueryArea, features: bool = True, imagery: bool = True,
                 classes: Optional[Iterable[str]] = None,
                 min_confidence: Optional[float] = None
                 ) -> Tuple[FetchResult[MapFeature], FetchResult[Frame]]:
        """Features and frames of the area in one request per tile (from /map-data)."""
        if not features and not imagery:
            from .errors import ValidationError

            raise ValidationError("Ask for map features, imagery or both")
        kinds = [k for k, on in (("mapFeatures", features), ("imagery", imagery)) if on]
        jobs = [_Job(t.index, t, "/map-data", {"type": kinds, "geometry": t.geojson}, {})
                for t in self.tiles(area)]
        outcomes, result, error = self._run(jobs, "map data")
        pair = self._split_map_data(result, outcomes, area, classes, min_confidence)
        if error is not None:
            # The partial result of a combined fetch is the (features, frames) pair.
            error.result = pair
            raise error
        return pair

    def estimate(self, area: QueryArea, kind: str = "features",
                 weeks: Optional[Sequence[date]] = None, bursts: int = 0) -> FetchEstimate:
        """Requests a fetch will send; credits only where the price is published."""
        tiles = len(self.tiles(area))
        if kind == "weeks":
            n_weeks = len({week_monday(w) for w in (weeks or [])})
            return FetchEstimate(tiles, tiles * n_weeks, area.area_km2, None,
                                 "Imagery is charged per image returned; the total is known "
                                 "only after the fetch.")
        if kind == "bursts":
            return FetchEstimate(0, 1, area.area_km2, BURST_PRICE * bursts,
                                 "125 credits per burst location, charged only when captured; "
                                 "uncaptured bursts are refunded after 7 days.")
        note = {"features": "Map features are charged per detection returned.",
                "imagery": "Imagery is charged per image returned.",
                "map_data": "Charged per detection and per image returned."}.get(kind, "")
        return FetchEstimate(tiles, tiles, area.area_km2, None, note)

    def tiles(self, area: QueryArea) -> List[Tile]:
        """The request tiles of an area."""
        return tile_area(area, self.max_km2)

    # -- engine ---------------------------------------------------------------------------

    def _report(self, done: int, total: int, objects: int, credits: float, msg: str) -> None:
        if self.progress is not None:
            try:
                self.progress(FetchProgress(done, total, objects, credits, msg))
            except FetchCancelled:
                self.cancel.cancel()

    def _endpoint(self, path: str) -> str:
        return self.client.profile.data_url + path

    def _run_job(self, job: _Job) -> _Outcome:
        """Fetch and parse one tile in a worker, so parsing overlaps other requests' waits."""
        outcome = self._fetch_job(job)
        outcome.parsed = _parse(job, outcome.body)
        return outcome

    def _fetch_job(self, job: _Job) -> _Outcome:
        """Fetch one tile: the cache first (renewing stale URLs), else the API."""
        self.cancel.raise_if_cancelled()
        endpoint = self._endpoint(job.path)
        if self.cache is not None and not self.refresh:
            entry = self.cache.get_entry("POST", endpoint, job.body, job.params)
            if entry is not None:
                body, fetched_at = entry
                try:
                    renewed = renew_stale(body, fetched_at,
                                          lambda u: self.client.renew_url(u, cancel=self.cancel),
                                          workers=self.concurrency)
                except FetchCancelled:
                    raise
                except FleetStreetError as exc:
                    log.info("renewing cached URLs failed (%s); fetching the tile again", exc)
                else:
                    if renewed:
                        self.cache.put("POST", endpoint, job.body, job.params, body, fetched_at)
                    _check_body(job.path, body, job.body)
                    return _Outcome(job, body, True)
        body = self.client.call("POST", job.path, params=job.params, body=job.body,
                                cancel=self.cancel)
        _check_body(job.path, body, job.body)
        if self.cache is not None:
            self.cache.put("POST", endpoint, job.body, job.params, body)
        return _Outcome(job, body, False)

    def _run(self, jobs: List[_Job], what: str
             ) -> Tuple[List[_Outcome], FetchResult, Optional[PartialFetchError]]:
        result: FetchResult = FetchResult(tiles_total=len(jobs))
        self.cancel.raise_if_cancelled()
        self._report(0, len(jobs), 0, 0.0, f"Fetching {what}: {len(jobs)} requests")
        # The balance is read before any tile is sent: answers without credit figures
        # (/mapFeatures/poly) are costed from the balance, which must not include them yet.
        started = time.perf_counter()
        result.balance_before = self._balance_or_none(result)
        requests_started = time.perf_counter()
        result.timings["balance"] = requests_started - started
        if result.cancelled:
            return [], result, None
        outcomes: Dict[int, _Outcome] = {}
        errors: Dict[int, FleetStreetError] = {}
        pending = deque(jobs)
        running: Dict[Future, _Job] = {}
        per_request = 0.0  # largest credit cost seen for one request
        unreported = False
        min_remaining: Optional[float] = None
        budget_hit = False
        first_cost: Optional[float] = None  # credits of the first request, sent alone
        fatal: Optional[FleetStreetError] = None
        objects = 0
        pool = ThreadPoolExecutor(max_workers=self.concurrency,
                                  thread_name_prefix="fleetstreet-fetch")
        try:
            while pending or running:
                if self.cancel.cancelled:
                    result.cancelled = True
                    break
                while pending and len(running) < self.concurrency and fatal is None:
                    if self.budget is not None:
                        if not running and per_request == 0 and result.tiles_fetched == 0:
                            pass  # the first request measures the price
                        elif per_request == 0 and running and result.tiles_fetched == 0:
                            break  # wait for the first price before spending in parallel
                        elif result.credits_used + per_request * (len(running) + 1) \
                                > self.budget:
                            budget_hit = not running
                            break
                    job = pending.popleft()
                    running[pool.submit(self._run_job, job)] = job
                if budget_hit or (fatal is not None and not running):
                    break
                if not running:
                    continue
                done, _ = wait(list(running), timeout=0.1, return_when=FIRST_COMPLETED)
                for fut in done:
                    job = running.pop(fut)
                    try:
                        outcome = fut.result()
                    except FetchCancelled:
                        result.cancelled = True
                        continue
                    except FleetStreetError as exc:
                        errors[job.index] = exc
                        if isinstance(exc, _FATAL):
                            fatal = exc
                            pending.clear()
                        continue
                    except Exception as exc:  # a surprise in one tile must not lose the rest
                        log.exception("request %d failed unexpectedly", job.index)
                        errors[job.index] = FleetStreetError(
                            f"A request failed unexpectedly ({type(exc).__name__}: {exc})")
                        continue
                    outcomes[job.index] = outcome
                    if outcome.from_cache:
                        result.tiles_from_cache += 1
                    else:
                        result.tiles_fetched += 1
                        used, remaining = _credits_of(outcome.body)
                        if used is None:
                            unreported = True
                            if self.budget is not None:
                                # The budget needs a price: learn it from the balance.
                                spent, remaining = self._spent_since(result.balance_before)
                                if spent is not None:
                                    per_request = max(per_request,
                                                      spent - result.credits_used)
                                    result.credits_used = max(result.credits_used, spent)
                        else:
                            result.credits_used += used
                            per_request = max(per_request, used)
                        if first_cost is None:
                            first_cost = result.credits_used
                        if remaining is not None:
                            min_remaining = remaining if min_remaining is None \
                                else min(min_remaining, remaining)
                    objects += _count(outcome.body)
                    self._report(len(outcomes) + len(errors), len(jobs), objects,
                                 result.credits_used, f"{what}: tile {job.index + 1} done")
        finally:
            # Do not wait for requests in flight: cancel must return at once.
            pool.shutdown(wait=not (result.cancelled or fatal is not None or budget_hit),
                          cancel_futures=True)
        requests_ended = time.perf_counter()
        result.timings["requests"] = requests_ended - requests_started
        result.credits_remaining = min_remaining
        if unreported and result.tiles_fetched and not result.cancelled:
            spent, after = self._spent_since(result.balance_before)
            if spent is not None:
                result.credits_used = max(result.credits_used, spent)
                result.credits_remaining = after
        result.timings["balance"] += time.perf_counter() - requests_ended
        if result.credits_remaining is None and result.balance_before is not None:
            result.credits_remaining = result.balance_before - result.credits_used
        result.failed_tiles = sorted(errors)
        ordered = [outcomes[i] for i in sorted(outcomes)]
        self._report(len(outcomes), len(jobs), objects, result.credits_used,
                     "Cancelled" if result.cancelled else f"{what}: done")
        if self.budget is not None and first_cost is not None and first_cost > self.budget:
            result.notes.append(
                f"The first request was sent alone to learn the price and by itself cost "
                f"{first_cost:g} credits, more than the budget of {self.budget:g}")
        error: Optional[PartialFetchError] = None
        if result.cancelled:
            pass
        elif budget_hit:
            message = (f"Stopped after {len(outcomes)} of {len(jobs)} requests: the next would "
                       f"exceed the budget of {self.budget:g} credits "
                       f"({result.credits_used:g} spent)")
            if result.notes:
                message += ". " + ". ".join(result.notes)
            error = BudgetExceeded(message, result=result)
        elif errors:
            error = PartialFetchError(
                f"{len(errors)} of {len(jobs)} requests for {what} failed; "
                f"{len(outcomes)} succeeded", result=result, cause=errors[min(errors)])
        return ordered, result, error

    def _balance_or_none(self, result: FetchResult) -> Optional[float]:
        """The balance before the fetch, waiting cancellably; None if it cannot be read."""
        reader = ThreadPoolExecutor(max_workers=1, thread_name_prefix="fleetstreet-balance")
        future = reader.submit(self.client.balance)
        reader.shutdown(wait=False)
        while not future.done():
            if self.cancel.wait(0.05):
                result.cancelled = True
                return None
        try:
            return future.result()
        except FetchCancelled:
            result.cancelled = True
            return None
        except _FATAL:
            raise  # a bad key or an empty account stops the fetch before it spends anything
        except FleetStreetError as exc:
            log.info("reading the balance failed (%s); credits may be under-reported", exc)
            return None

    def _spent_since(self, before: Optional[float]) -> Tuple[Optional[float], Optional[float]]:
        """(credits spent since `before`, balance now) from a fresh balance read."""
        if before is None:
            return None, None
        try:
            after = self.client.balance()
        except FleetStreetError:
            return None, None
        return max(0.0, before - after), after

    # -- merging --------------------------------------------------------------------------

    @staticmethod
    def _merge_features(pages: Iterable[List[MapFeature]], area: QueryArea,
                        classes: Optional[set], min_confidence: Optional[float]
                        ) -> List[MapFeature]:
        seen = set()
        candidates = []
        for page in pages:
            for f in page:
                key = f.id if f.id is not None else (f.feature_class, f.lon, f.lat)
                if key in seen:
                    continue
                if classes is not None and f.feature_class not in classes:
                    continue
                if min_confidence is not None and (f.confidence is None
                                                   or f.confidence < min_confidence):
                    continue
                seen.add(key)
                candidates.append(f)
        inside = area.covers_many([(f.lon, f.lat) for f in candidates])
        return [f for f, ok in zip(candidates, inside) if ok]

    @staticmethod
    def _merge_frames(pages: Iterable[List[Frame]], area: QueryArea,
                      by_week: bool = False) -> List[Frame]:
        seen = set()
        candidates = []
        for page in pages:
            for fr in page:
                key = (fr.week, fr.key) if by_week else fr.key
                if key not in seen:
                    seen.add(key)
                    candidates.append(fr)
        inside = area.covers_many([(fr.lon, fr.lat) for fr in candidates])
        return [fr for fr, ok in zip(candidates, inside) if ok]

    @staticmethod
    def _finish(result: FetchResult, items: List[Any],
                error: Optional[PartialFetchError]) -> FetchResult:
        result.items = items
        if error is not None:
            raise error
        return result

    def _split_map_data(self, result: FetchResult, outcomes: List[_Outcome], area: QueryArea,
                        classes: Optional[Iterable[str]], min_confidence: Optional[float]
                        ) -> Tuple[FetchResult, FetchResult]:
        pages = [o.parsed for o in outcomes]
        wanted = set(classes) if classes else None
        # Lists are copied so the two results never share (and mutate) one list.
        base = {k: list(v) if isinstance(v, list) else v
                for k, v in result.__dict__.items() if k != "items"}
        feats = FetchResult(items=self._merge_features(
            (p.features for p in pages), area, wanted, min_confidence), **base)
        frames = FetchResult(items=self._merge_frames((p.frames for p in pages), area), **base)
        return feats, frames


def _parse(job: _Job, body: Any) -> Any:
    """Model objects of one tile's answer."""
    if job.path == "/mapFeatures/poly":
        return FeaturesPage.from_json(body).features
    if job.path == "/map-data":
        return MapDataResult.from_json(body)
    return ImageryPage.from_json(body, week=job.week).frames


def _check_body(path: str, body: Any, request: Any = None) -> None:
    """Reject a 2xx body that lacks what the endpoint promises (never an empty result)."""
    if not isinstance(body, dict):
        raise InvalidResponseError(f"The answer of {path} is not a JSON object")
    if path in ("/latest/poly", "/imagery/poly") and not isinstance(body.get("frames"), list):
        raise InvalidResponseError(f"The answer of {path} has no 'frames' list")
    if path == "/mapFeatures/poly" and not isinstance(body.get("features"), list):
        raise InvalidResponseError(f"The answer of {path} has no 'features' list")
    if path == "/map-data":
        kinds = request.get("type") if isinstance(request, dict) else None
        check_map_data(body, kinds if isinstance(kinds, list) else ["mapFeatures", "imagery"])


def _credits_of(body: Any) -> Tuple[Optional[float], Optional[float]]:
    used = body.get("creditsUsed", body.get("totalCreditsUsed"))
    remaining = body.get("creditsRemaining", body.get("totalCreditsRemaining"))
    used = float(used) if isinstance(used, (int, float)) and not isinstance(used, bool) else None
    remaining = float(remaining) if isinstance(remaining, (int, float)) \
        and not isinstance(remaining, bool) else None
    return used, remaining


def _count(body: Any) -> int:
    if not isinstance(body, dict):
        return 0
    n = 0
    for name in ("frames", "features"):
        if isinstance(body.get(name), list):
            n += len(body[name])
    for name in ("mapFeatureResults", "imageryResults"):
        part = body.get(name)
        if isinstance(part, dict) and isinstance(part.get("data"), list):
            n += len(part["data"])
    return n

