"""Answer accuracy with reference-retrieved contexts and multi-turn follow-up evaluation:
the judge of the response against the reference with evaluation contexts, and the
dialogue agents."""
