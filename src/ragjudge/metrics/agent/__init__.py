"""Judges of what an agent did on the way to its answer: whether it accomplished the
user's goal, whether each tool it called was the right one, and criteria of your own
over the whole trace."""
