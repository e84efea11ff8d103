"""Answer accuracy and multi-turn continuous response (seed 000): the judge of the
response against the reference with evaluation contexts, and the dialogue agents."""
