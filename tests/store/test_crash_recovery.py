"""Kill a writer process mid-stream (SIGKILL) and check every flushed word is kept."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from client.store.conversations.history import HistoryStore
from client.store.db import Database

WRITER = r"""
import sys, time
from client.store.db import Database
from client.store.conversations.history import HistoryStore
history = HistoryStore(Database())
chat = history.create_conversation("crash")
question = history.add_message(chat.id, "user", "tell me")
answer = history.add_message(chat.id, "assistant", parent_id=question.id, state="streaming")
for n in range(20):
    history.append_text(answer.id, f"word{n} ")
print(answer.id, flush=True)
time.sleep(60)  # killed long before this ends
"""


def test_killed_writer_keeps_flushed_text_and_reopens_interrupted(data_dir: Path) -> None:
    env = {**os.environ, "TACHY_DATA_DIR": str(data_dir)}
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER], stdout=subprocess.PIPE, env=env, text=True
    )
    try:
        assert writer.stdout is not None
        message_id = int(writer.stdout.readline())  # every append has committed
        writer.send_signal(signal.SIGKILL)
        assert writer.wait(timeout=60) == -signal.SIGKILL
    finally:
        if writer.poll() is None:
            writer.kill()
            writer.wait(timeout=60)
    with Database() as db:
        history = HistoryStore(db)
        assert history.recovered == [message_id]
        message = history.get_message(message_id)
        assert message is not None
        assert message.state == "interrupted"
        assert message.content == "".join(f"word{n} " for n in range(20))
        chat_id = message.conversation_id
        assert history.active_path(chat_id)[0].content == "tell me"
