"""`hermes chat` with memory.provider: honcho, a real model-protocol server and the Honcho server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hermes_core.testing_servers import OpenAIServer, text_reply


def test_chat_recalls_into_the_user_message_and_title_renames_the_honcho_session(
    run_hermes: Any, hermes_home: Path, honcho_config: Any, fake: Any, workspace: str, sdk: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    fake.add_conclusion(workspace, "hermes", "eri", "Eri deploys on Fridays")
    honcho_config(writeFrequency="turn")
    project = tmp_path / "shop"
    project.mkdir()
    monkeypatch.chdir(project)
    with OpenAIServer([text_reply("First answer."), text_reply("Second answer.")]) as model:
        (hermes_home / "config.yaml").write_text(
            f"model:\n  provider: openai\n  name: m\n  base_url: {model.base_url}\nmemory:\n  provider: honcho\n"
        )
        result = run_hermes("chat", "--no-stream", input="when do I deploy?\n/title Release plan\nand after that?\n/exit\n")
        bodies = model.bodies
    assert result.exit_code == 0, result.stderr
    system, *_, first_user = bodies[0]["messages"]
    assert "# Honcho memory" in system["content"] and "<memory-context>" not in system["content"]
    assert "<memory-context>" in first_user["content"] and "Eri deploys on Fridays" in first_user["content"]
    assert bodies[1]["messages"][0] == system  # the system prompt did not change: the prefix cache holds
    assert [m.content for m in sdk.session("shop").messages()] == ["when do I deploy?", "First answer."]
    assert [m.content for m in sdk.session("Release-plan").messages()] == ["and after that?", "Second answer."]
