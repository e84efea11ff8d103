"""Tool metrics without a judge: what an agent called against what it was expected to
call (``tool_call_precision``, ``tool_call_recall``, ``tool_call_f1``,
``tool_argument_match``, ``trajectory_match``), and how it called them
(``tool_steps``, ``redundant_tool_calls``)."""
