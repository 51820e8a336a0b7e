"""Inspect AI's entry point for casec (``[project.entry-points.inspect_ai]``): importing
it registers the task ``casec/suite`` and the models ``casec/golden`` and ``casec/idle``."""

from .harness import suite  # noqa: F401
from .models import CasecModel  # noqa: F401
