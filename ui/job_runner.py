"""Run Processing algorithms one after another in background tasks and load their results."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

from qgis.core import (
    QgsApplication,
    QgsProcessingAlgRunnerTask,
    QgsProcessingContext,
    QgsProcessingFeedback,
    QgsProject,
)
from qgis.PyQt.QtCore import QObject, pyqtSignal

# Runs whose panel went away: QgsProcessingAlgRunnerTask keeps raw pointers to its context
# and feedback, so they stay referenced here until the task has really ended.
_ORPHANS: set = set()


def _adopt_until_done(task, *keep) -> None:
    """Keep task's companions alive until the task manager reports it ended."""
    entry = (task, *keep)
    _ORPHANS.add(entry)

    def release(*_args):
        _ORPHANS.discard(entry)

    task.taskCompleted.connect(release)
    task.taskTerminated.connect(release)


def _is_false(value) -> bool:
    """A boolean output read back from a task (it may come back as text)."""
    return value is False or str(value).lower() == "false"


class PanelFeedback(QgsProcessingFeedback):
    """Feedback that also signals info lines and keeps the last error for the panel."""

    info = pyqtSignal(str)

    def __init__(self):
        super().__init__()
        self.last_error = ""
        #: set by the panel's Cancel: the algorithm stops and returns what it fetched
        self.stop_requested = False

    def pushInfo(self, info):  # noqa: N802 - QGIS API name
        """Log the line and signal it (queued to the main thread)."""
        super().pushInfo(info)
        self.info.emit(info)

    def reportError(self, error, fatalError=False):  # noqa: N802,N803 - QGIS API name
        """Log the error and keep it for the panel's message."""
        super().reportError(error, fatalError)
        self.last_error = error
        self.info.emit(error)


@dataclass
class Job:
    """One algorithm run: its id, its parameters and a title for messages."""

    algorithm_id: str
    parameters: dict
    title: str
    results: dict = field(default_factory=dict)


class JobRunner(QObject):
    """Queue of algorithm runs; each runs in a QgsProcessingAlgRunnerTask.

    Results are loaded into the project on the main thread by Processing's own
    post-processing, which also applies the styles the algorithms attach.
    """

    progress = pyqtSignal(float)
    message = pyqtSignal(str)
    job_finished = pyqtSignal(object, bool, str)
    all_finished = pyqtSignal(bool)

    def __init__(self, parent=None):
        super().__init__(parent)
        self._queue: list[Job] = []
        self._task = None
        self._context = None
        self._feedback = None
        self._algorithm = None
        self._ok = True

    @property
    def running(self) -> bool:
        """True while a job is queued or running."""
        return self._task is not None or bool(self._queue)

    def start(self, jobs: list[Job]) -> None:
        """Queue jobs and start the first one."""
        self._queue.extend(jobs)
        self._ok = True
        if self._task is None:
            self._next()

    def cancel(self) -> None:
        """Stop the running job, keeping what it fetched, and drop the queued ones."""
        self._queue.clear()
        if self._feedback is not None:
            # not feedback.cancel(): Processing would discard the outputs of a cancelled run
            self._feedback.stop_requested = True

    def detach(self) -> None:
        """Cancel everything and stop listening to the running task (the panel is closing)."""
        self._queue.clear()
        if self._feedback is not None:
            self._feedback.cancel()
        if self._task is not None:
            # already finished and disconnected, or deleted by the task manager: fine
            with contextlib.suppress(TypeError, RuntimeError):
                self._task.executed.disconnect()
            with contextlib.suppress(RuntimeError):  # the task manager may have deleted it
                self._task.cancel()
                _adopt_until_done(self._task, self._context, self._feedback, self._algorithm)
        self._task = None

    def _next(self) -> None:
        if not self._queue:
            self._task = None
            self.all_finished.emit(self._ok)
            return
        job = self._queue.pop(0)
        algorithm = QgsApplication.processingRegistry().createAlgorithmById(job.algorithm_id)
        if algorithm is None:
            self._finish(job, False, f"Algorithm {job.algorithm_id} is not available.")
            return
        context = QgsProcessingContext()
        context.setProject(QgsProject.instance())
        feedback = PanelFeedback()
        feedback.progressChanged.connect(self.progress.emit)
        if hasattr(feedback, "progressTextChanged"):  # QGIS >= 3.26
            feedback.progressTextChanged.connect(self.message.emit)
        feedback.info.connect(self.message.emit)
        task = QgsProcessingAlgRunnerTask(algorithm, job.parameters, context, feedback)
        task.executed.connect(lambda ok, results, job=job: self._executed(job, ok, results))
        # the task, its context and feedback must outlive this method (QGIS owns the task
        # only once added; Python must keep the rest referenced until it ends)
        self._task, self._context, self._feedback, self._algorithm = (
            task, context, feedback, algorithm)
        self.message.emit(f"{job.title}…")
        QgsApplication.taskManager().addTask(task)

    def _executed(self, job: Job, ok: bool, results: dict) -> None:
        error = ""
        stopped = self._feedback is not None and self._feedback.stop_requested
        if ok:
            job.results = dict(results)
            self._load_results()
            if stopped:
                error = "Cancelled: the layer holds what was fetched before."
            elif _is_false(job.results.get("COMPLETE")):
                error = self._last_error or "Incomplete: see the Processing log."
        elif stopped:
            error = "Cancelled. What was fetched is kept in the cache; run again to resume."
        else:
            error = self._last_error or "The algorithm failed; see the Processing log."
        self._finish(job, ok, error)

    @property
    def _last_error(self) -> str:
        return self._feedback.last_error if self._feedback is not None else ""

    def _load_results(self) -> None:
        from processing.gui.Postprocessing import handleAlgorithmResults

        handleAlgorithmResults(self._algorithm, self._context, self._feedback)

    def _finish(self, job: Job, ok: bool, error: str) -> None:
        self._ok = self._ok and ok
        self._task = None
        self.job_finished.emit(job, ok, error)
        self._next()
