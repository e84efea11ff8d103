"""A stand-in system under test for the example registry: canned answers to the
registry's questions, in English and Japanese. A real evaluation points the config's
``target`` at the system to evaluate instead."""

from __future__ import annotations

ANSWERS = {
    "combines two results and keeps duplicate rows": "UNION ALL",
    "filters groups after aggregation": "HAVING",
    "removes every row of a table": "DELETE FROM the table",
    "グループを絞り込む": "HAVING",
    "重複する行": "SELECT DISTINCT",
    "LEFT JOIN": "All rows of the left table, with the matching right rows or NULLs.",
    "INNER JOIN": "Only the rows that have a match in both tables.",
    "index": "It speeds up finding rows by the indexed columns.",
    "view": "A saved SELECT statement you can query like a table.",
    "ビュー": "名前を付けて保存したSELECT文で、表のように問い合わせられます。",
    "インデックス": "索引の列で行を速く探すためのものです。",
}


def answer(query: str) -> str:
    """The canned answer whose key the question contains, else a refusal."""
    for key, reply in ANSWERS.items():
        if key in query:
            return reply
    return "I don't know."
