"""Recorded dialogues: a row whose request holds a whole conversation (user and
assistant turns, optionally a system message giving the assistant's role) scored per
conversation — whether the assistant keeps what the user said, stays in its role,
answers each turn relevantly and meets the user's needs — with a verdict per turn in
the details; and ``per_turn``, which applies any single-turn metric to every assistant
turn and aggregates the values over the dialogue."""
