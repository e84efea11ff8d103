"""Self-contained HTML reports of stored runs and comparisons, and the local viewer
that serves them over a store.

A report is one HTML file: the style sheet, the script and the charts (SVG drawn
here) are inlined, and a Content-Security-Policy forbids every request, so it opens
offline, from a file or an e-mail attachment, and shows the same thing years later.
Every piece of evaluated text is escaped by the templates' autoescaping.
"""

from ragjudge.report._compare import comparison_report_html
from ragjudge.report._files import (
    ReportError,
    comparison_report_path,
    run_report_path,
    write_comparison_report,
    write_configured_report,
    write_result_report,
    write_run_report,
)
from ragjudge.report._run import run_report_html
from ragjudge.report._viewer import ViewerServer, make_server

__all__ = [
    "ReportError",
    "ViewerServer",
    "comparison_report_html",
    "comparison_report_path",
    "make_server",
    "run_report_html",
    "run_report_path",
    "write_comparison_report",
    "write_configured_report",
    "write_result_report",
    "write_run_report",
]
