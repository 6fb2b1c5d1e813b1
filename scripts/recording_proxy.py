"""A recording reverse proxy for scripts/llama-server.sh: forwards every POST to UPSTREAM and writes
each exchange (the request's path and JSON body, the answer's status, content type and body as
text, the working directory's path cut out of it: a server's traceback names its files) to
OUT/<session>.json, in order; <session> is the first segment of the path, which is
stripped before forwarding (a client asks http://127.0.0.1:PORT/streamed/v1/chat/completions).

    python3 recording_proxy.py PORT UPSTREAM OUT
"""

import json
import os
import pathlib
import sys
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

port, upstream, out = int(sys.argv[1]), sys.argv[2].rstrip("/"), pathlib.Path(sys.argv[3])
out.mkdir(parents=True, exist_ok=True)
lock = threading.Lock()
sessions = {}


class Proxy(BaseHTTPRequestHandler):
    def do_POST(self):
        _, session, rest = self.path.split("/", 2)
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        request = urllib.request.Request(
            f"{upstream}/{rest}",
            data=body,
            headers={"content-type": "application/json", "accept": self.headers.get("accept", "*/*")},
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=600) as answer:
                status, kind, data = answer.status, answer.headers.get("content-type", ""), answer.read()
        except urllib.error.HTTPError as error:
            status, kind, data = error.code, error.headers.get("content-type", ""), error.read()
        with lock:
            exchanges = sessions.setdefault(session, [])
            exchanges.append(
                {
                    "path": "/" + rest,
                    "request": json.loads(body),
                    "status": status,
                    "content_type": kind,
                    "body": data.decode("utf-8", "replace").replace(os.getcwd() + "/", ""),
                }
            )
            (out / f"{session}.json").write_text(json.dumps(exchanges, indent=2, ensure_ascii=False) + "\n")
        self.send_response(status)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("127.0.0.1", port), Proxy).serve_forever()
