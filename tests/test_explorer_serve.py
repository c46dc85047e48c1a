"""tools/serve_explorer.py: the Voila server of `make explorer` for one user or a class (no
server is started here; tests/test_explorer_browser.py serves and drives it)."""
import importlib.util
import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _serve():
    spec = importlib.util.spec_from_file_location("serve_explorer", REPO / "tools" / "serve_explorer.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


serve = _serve()


@pytest.mark.subprocess
def test_the_class_settings_reach_voila(tmp_path):
    notebook = tmp_path / "explorer.ipynb"
    notebook.write_text("{}")
    cmd = serve.voila_command(notebook, 9999, host="0.0.0.0", token="s3cret", pool=4, cull_idle=120)
    assert "--Voila.ip=0.0.0.0" in cmd and "--Voila.token=s3cret" in cmd and "--port=9999" in cmd
    config = json.loads((tmp_path / "voila.json").read_text())
    # uploads up to SERVER_MAX_UPLOAD_MB travel in one websocket message (tornado's default: 10 MB)
    assert config["Voila"]["tornado_settings"]["websocket_max_message_size"] == serve.SERVER_MAX_UPLOAD_MB * 2**20
    assert serve.SERVER_MAX_UPLOAD_MB * 2**20 > 32 * 2**20
    assert config["VoilaConfiguration"] == {"preheat_kernel": True, "default_pool_size": 4}
    assert config["MappingKernelManager"] == {"cull_idle_timeout": 120, "cull_interval": serve.CULL_INTERVAL,
                                              "cull_connected": False}  # open pages are never culled
    assert config["VoilaExecutor"]["iopub_timeout"] == serve.IOPUB_TIMEOUT > 4
    # the explorer refuses (with a message) what the server would still take
    from turs.explorer import _studio

    assert _studio.MAX_UPLOAD_MB < serve.SERVER_MAX_UPLOAD_MB == _studio.SERVER_MAX_UPLOAD_MB
    local = serve.voila_command(notebook, 9999)
    assert "--Voila.ip=127.0.0.1" in local and not any(a.startswith("--Voila.token") for a in local)
    assert serve.voila_config(pool=0, cull_idle=0) == {
        "Voila": config["Voila"], "VoilaExecutor": config["VoilaExecutor"],
        "VoilaConfiguration": {"preheat_kernel": False, "default_pool_size": 0},
        "VoilaKernelManager": {"fill_delay": serve.FILL_DELAY}}
    assert config["VoilaKernelManager"]["fill_delay"] >= 30  # the pool refills after the pages opened


def test_no_open_server_on_a_network(capsys):
    with pytest.raises(SystemExit) as stop:
        serve.main(["--host", "0.0.0.0", "--token", "", "--no-convert", "--port", "1"])
    assert stop.value.code == 2
    assert "would open it to anyone" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        serve.main(["--pool", "-1"])
