"""Account and camera facts: credit balance and camera intrinsics."""

from __future__ import annotations

from qgis.core import (
    QgsProcessingOutputNumber,
    QgsProcessingParameterFeatureSink,
)

from ..compat import (
    TYPE_VECTOR,
)
from .street_base import (
    StreetAlgorithm,
)

INTRINSICS_SPEC = [
    ("model", "string"), ("focal", "double"), ("k1", "double"), ("k2", "double"),
    ("k3", "double"), ("k4", "double"), ("p1", "double"), ("p2", "double"),
]


class CreditBalance(StreetAlgorithm):
    """The account's remaining API credits."""

    ALG_ID = "creditbalance"
    DISPLAY = "Credit balance"
    HELP = "Calls GET /balance (free). Outputs the remaining API credits as the number BALANCE."

    def init_parameters(self):
        """BALANCE output."""
        self.addOutput(QgsProcessingOutputNumber("BALANCE", "Remaining credits"))

    def work(self, parameters, context, feedback, cancel):
        """Read the balance."""
        with self.data_client(cancel) as client:
            balance = client.balance()
        feedback.pushInfo(f"Remaining credits: {balance:g}.")
        return {"BALANCE": balance}


class CameraIntrinsics(StreetAlgorithm):
    """Lens parameters of each camera model."""

    ALG_ID = "cameraintrinsics"
    DISPLAY = "Camera intrinsics"
    NEEDS_KEY = False
    HELP = ("Calls GET /devices (free, no key needed). Outputs a table with one row per "
            "camera model: focal length (normalised by image width) and distortion terms "
            "k1..k4, p1, p2, as used by 'Undistort images'.")

    def init_parameters(self):
        """OUTPUT table."""
        self.addParameter(QgsProcessingParameterFeatureSink(
            "OUTPUT", "Camera intrinsics", TYPE_VECTOR))

    def work(self, parameters, context, feedback, cancel):
        """Fetch and write the intrinsics."""
        with self.data_client(cancel) as client:
            models = client.camera_intrinsics()
        dest, _count = self.write_table(
            parameters, context, feedback, INTRINSICS_SPEC, "Camera intrinsics",
            ([m.model, m.focal, m.k1, m.k2, m.k3, m.k4, m.p1, m.p2]
             for m in (models[name] for name in sorted(models))))
        return {"OUTPUT": dest}
