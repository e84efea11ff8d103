"""Finding the snippets of a Markdown file: whatever the README holds at test time."""

from __future__ import annotations

import pytest
from readme_snippets import find_snippets, is_file_block, is_test_block

pytestmark = pytest.mark.smoke

MARKDOWN = """\
# Title

```bash
ragjudge metrics --json     # every metric
pip install ragjudge
$ ragjudge runs --store a.db
.venv/bin/ragjudge --version
```

<!-- not run in CI: needs an OpenAI key -->

```console
ragjudge run openai.yaml
```

<!-- not run in CI -->
```python
print("no reason given")
```

```python
# my_metrics.py, beside eval.yaml
X = 1
```

```python
async def test_quality(ragjudge_aevaluate):
    pass
```

```yaml
data: evalset.jsonl
metrics: [rouge_l]
```

```yaml
metrics:
  - rouge_l
```

~~~python
print("tilde fence")
~~~

```
ragjudge show RUN
```
"""


def test_commands_are_the_ragjudge_lines_of_shell_blocks_without_prompt_or_comment() -> None:
    commands = [s for s in find_snippets(MARKDOWN) if s.kind == "command"]
    assert [(s.line, s.text) for s in commands] == [
        (4, "ragjudge metrics --json"),
        (6, "ragjudge runs --store a.db"),
        (7, ".venv/bin/ragjudge --version"),
        (13, "ragjudge run openai.yaml"),
    ]
    assert [s.opted_out for s in commands] == [None, None, None, "needs an OpenAI key"]


def test_a_marker_without_a_reason_is_kept_as_an_empty_reason() -> None:
    python = [s for s in find_snippets(MARKDOWN) if s.kind == "python"]
    assert python[0].opted_out == "" and python[0].line == 17


def test_file_and_test_blocks_are_told_apart() -> None:
    python = [s for s in find_snippets(MARKDOWN) if s.kind == "python"]
    assert [is_file_block(s) for s in python] == [None, "my_metrics.py", None, None]
    assert [is_test_block(s) for s in python] == [False, False, True, False]
    assert python[-1].text == 'print("tilde fence")\n'


def test_only_complete_configs_are_configs() -> None:
    configs = [s for s in find_snippets(MARKDOWN) if s.kind == "config"]
    assert [s.line for s in configs] == [31]
