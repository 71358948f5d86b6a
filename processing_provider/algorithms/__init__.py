"""Algorithm classes of the provider, grouped by API."""

from __future__ import annotations


def algorithm_classes() -> list:
    """Every algorithm class the provider registers."""
    from .account import CameraIntrinsics, CreditBalance
    from .bursts import CreateBursts, FetchBurstImagery, ListBursts
    from .events import SearchAIEvents
    from .features import FetchMapFeatures
    from .fleet import FLEET_ALGORITHMS
    from .imagery import FetchImageryByWeek, FetchLatestImagery, FetchMapData
    from .undistort import UndistortImages

    street = [FetchMapFeatures, FetchLatestImagery, FetchImageryByWeek, FetchMapData,
              CreateBursts, ListBursts, FetchBurstImagery, SearchAIEvents, CreditBalance,
              CameraIntrinsics, UndistortImages]
    return street + list(FLEET_ALGORITHMS)
