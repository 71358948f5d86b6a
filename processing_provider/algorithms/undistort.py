"""Undistortion of downloaded frame images with the cameras' intrinsics."""

from __future__ import annotations

import os

from qgis.core import (
    QgsFeatureRequest,
    QgsProcessingException,
    QgsProcessingOutputNumber,
    QgsProcessingParameterFeatureSource,
)

from ..compat import (
    REQUEST_NO_GEOMETRY,
    TYPE_VECTOR,
)
from .base import advanced, stop_requested
from .street_base import (
    StreetAlgorithm,
)


class UndistortImages(StreetAlgorithm):
    """Undistorted copies of downloaded frame images."""

    ALG_ID = "undistortimages"
    DISPLAY = "Undistort images"
    NEEDS_KEY = False
    HELP = ("Calls GET /devices (free) for the camera intrinsics, then undistorts each local "
            "image of the INPUT frame layer (fields image_path and device, as written by the "
            "imagery algorithms with DOWNLOAD_IMAGES) with the model of its camera, using "
            "numpy only. Writes the corrected JPEGs to OUTPUT_FOLDER; outputs the folder and "
            "the number of images written (COUNT).")

    def init_parameters(self):
        """INPUT frame layer, field names, OUTPUT_FOLDER."""
        from qgis.core import QgsProcessingParameterField, QgsProcessingParameterFolderDestination

        self.addParameter(QgsProcessingParameterFeatureSource(
            "INPUT", "Frames with downloaded images", [TYPE_VECTOR]))
        self.addParameter(advanced(QgsProcessingParameterField(
            "PATH_FIELD", "Image path field", "image_path", "INPUT", optional=True)))
        self.addParameter(advanced(QgsProcessingParameterField(
            "DEVICE_FIELD", "Camera model field", "device", "INPUT", optional=True)))
        self.addParameter(QgsProcessingParameterFolderDestination(
            "OUTPUT_FOLDER", "Folder for the undistorted images"))
        self.addOutput(QgsProcessingOutputNumber("COUNT", "Images written"))

    def work(self, parameters, context, feedback, cancel):
        """Undistort every image with a known camera model."""
        from .imaging import undistort_file

        source = self.source(parameters, "INPUT", context)
        if source is None:
            raise QgsProcessingException("Choose the frame layer (INPUT).")
        path_field = self.parameterAsString(parameters, "PATH_FIELD", context) or "image_path"
        device_field = self.parameterAsString(parameters, "DEVICE_FIELD", context) or "device"
        names = source.fields().names()
        for name in (path_field, device_field):
            if name not in names:
                raise QgsProcessingException(f"The INPUT layer has no field '{name}'.")
        folder = self.parameterAsString(parameters, "OUTPUT_FOLDER", context)
        os.makedirs(folder, exist_ok=True)
        jobs = []
        request = QgsFeatureRequest().setFlags(REQUEST_NO_GEOMETRY)
        request.setSubsetOfAttributes([path_field, device_field], source.fields())
        for feat in source.getFeatures(request):
            path, model = feat[path_field], feat[device_field]
            if isinstance(path, str) and path and os.path.exists(path):
                jobs.append((path, str(model) if model else ""))
        if not jobs:
            raise QgsProcessingException(
                "No frame of INPUT has an existing local image (run an imagery algorithm with "
                "DOWNLOAD_IMAGES first).")
        with self.data_client(cancel) as client:
            models = client.camera_intrinsics()
        written = 0
        for i, (path, model) in enumerate(jobs):
            if stop_requested(feedback):
                break
            intr = models.get(model)
            if intr is None:
                feedback.pushWarning(f"No intrinsics for camera '{model}': {path} skipped.")
                continue
            target = os.path.join(folder, os.path.basename(path))
            try:
                undistort_file(path, target, intr)
                written += 1
            except (OSError, ValueError) as exc:
                feedback.pushWarning(f"{path}: {exc}")
            feedback.setProgress(100.0 * (i + 1) / len(jobs))
        feedback.pushInfo(f"{written} images written to {folder}.")
        return {"OUTPUT_FOLDER": folder, "COUNT": written}
