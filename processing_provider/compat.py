"""Enum spellings that work on QGIS 3.22 (Qt5) and QGIS 4 (Qt6).

QGIS 3.30-3.36 moved many enums to scoped ``Qgis.*`` enums and QGIS 4 removed the old
unscoped names. Each constant here takes the scoped enum when the running QGIS has it and
falls back to the 3.22 spelling otherwise; the rest of the plugin uses only these names.
"""

from __future__ import annotations

from qgis.core import (
    Qgis,
    QgsCoordinateReferenceSystem,
    QgsFeatureRequest,
    QgsFeatureSink,
    QgsProcessing,
    QgsProcessingFeatureSource,
    QgsProcessingParameterDateTime,
    QgsProcessingParameterDefinition,
    QgsProcessingParameterFile,
    QgsProcessingParameterNumber,
    QgsWkbTypes,
)


def scoped(name: str, legacy_owner, legacy: str):
    """Qgis.<name> (e.g. "WkbType.Point") when it exists, else legacy_owner.<legacy>."""
    group, member = name.split(".")
    enum = getattr(Qgis, group, None)
    if enum is not None and hasattr(enum, member):
        return getattr(enum, member)
    return getattr(legacy_owner, legacy)


# Processing source / sink layer types (Qgis.ProcessingSourceType, QGIS 3.36)
TYPE_VECTOR = scoped("ProcessingSourceType.Vector", QgsProcessing, "TypeVector")
TYPE_VECTOR_ANY = scoped("ProcessingSourceType.VectorAnyGeometry", QgsProcessing,
                         "TypeVectorAnyGeometry")
TYPE_VECTOR_POINT = scoped("ProcessingSourceType.VectorPoint", QgsProcessing,
                           "TypeVectorPoint")
TYPE_VECTOR_LINE = scoped("ProcessingSourceType.VectorLine", QgsProcessing, "TypeVectorLine")
TYPE_VECTOR_POLYGON = scoped("ProcessingSourceType.VectorPolygon", QgsProcessing,
                             "TypeVectorPolygon")

# Parameter details (QGIS 3.36)
NUMBER_DOUBLE = scoped("ProcessingNumberParameterType.Double", QgsProcessingParameterNumber,
                       "Double")
NUMBER_INTEGER = scoped("ProcessingNumberParameterType.Integer", QgsProcessingParameterNumber,
                        "Integer")
DATETIME_DATE = scoped("ProcessingDateTimeParameterDataType.Date",
                       QgsProcessingParameterDateTime, "Date")
FILE_FOLDER = scoped("ProcessingFileParameterBehavior.Folder", QgsProcessingParameterFile,
                     "Folder")
PARAMETER_ADVANCED = scoped("ProcessingParameterFlag.Advanced",
                            QgsProcessingParameterDefinition, "FlagAdvanced")

# Geometry (Qgis.WkbType / Qgis.GeometryType, QGIS 3.30)
WKB_POINT = scoped("WkbType.Point", QgsWkbTypes, "Point")
WKB_LINESTRING = scoped("WkbType.LineString", QgsWkbTypes, "LineString")
WKB_NO_GEOMETRY = scoped("WkbType.NoGeometry", QgsWkbTypes, "NoGeometry")
GEOMETRY_POINT = scoped("GeometryType.Point", QgsWkbTypes, "PointGeometry")
GEOMETRY_LINE = scoped("GeometryType.Line", QgsWkbTypes, "LineGeometry")
GEOMETRY_POLYGON = scoped("GeometryType.Polygon", QgsWkbTypes, "PolygonGeometry")

# Features and CRS (QGIS 3.36); QgsFeatureSink.Flag stays on its class in QGIS 4
SKIP_VALIDITY_CHECKS = scoped("ProcessingFeatureSourceFlag.SkipGeometryValidityChecks",
                              QgsProcessingFeatureSource, "FlagSkipGeometryValidityChecks")
REQUEST_NO_GEOMETRY = scoped("FeatureRequestFlag.NoGeometry", QgsFeatureRequest, "NoGeometry")
FAST_INSERT = QgsFeatureSink.Flag.FastInsert
WKT2_2019 = scoped("CrsWktVariant.Wkt2_2019", QgsCoordinateReferenceSystem, "WKT2_2019")


def _field_types() -> dict:
    # QgsField takes QMetaType.Type from QGIS 3.38 (required on Qt6); older builds need QVariant
    if Qgis.QGIS_VERSION_INT >= 33800:
        from qgis.PyQt.QtCore import QMetaType

        t = QMetaType.Type
        return {"string": t.QString, "int": t.Int, "long": t.LongLong, "double": t.Double,
                "bool": t.Bool, "datetime": t.QDateTime, "date": t.QDate}
    from qgis.PyQt.QtCore import QVariant

    return {"string": QVariant.String, "int": QVariant.Int, "long": QVariant.LongLong,
            "double": QVariant.Double, "bool": QVariant.Bool, "datetime": QVariant.DateTime,
            "date": QVariant.Date}


#: QgsField type per kind name; see fields.field_type
FIELD_TYPES = _field_types()
