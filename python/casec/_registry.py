"""Inspect AI's entry point for casec (``[project.entry-points.inspect_ai]``): importing
it registers the task ``casec/suite``, the agent ``casec/react``, the run-id hook and
the models ``casec/golden`` and ``casec/idle``."""

from .harness import RunIds, react, suite
from .models import CasecModel

__all__ = ["CasecModel", "RunIds", "react", "suite"]
