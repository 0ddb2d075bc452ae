# hello-log.js in Python: the same JSON answer (with the pid) and, when LOG=1, one JSON line
# per request on stdout, flushed as Python's logging.StreamHandler flushes each record, so each
# line is one write(2) as in a Node app. Threads, so every keep-alive connection is served.
import json
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOG = os.environ.get('LOG') == '1'
BODY = json.dumps({'hello': 'world', 'pid': os.getpid()}).encode()
PID = os.getpid()
count = 0


class Handler(BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def do_GET(self):
        global count
        self.send_response(200)
        self.send_header('content-type', 'application/json')
        self.send_header('content-length', str(len(BODY)))
        self.end_headers()
        self.wfile.write(BODY)
        if LOG:
            count += 1
            sys.stdout.write('{"level":30,"time":%d,"pid":%d,"hostname":"bench","reqId":"req-%d","res":{"statusCode":200},"req":{"method":"%s","url":"%s"},"responseTime":0.1,"msg":"request completed"}\n'
                             % (time.time() * 1000, PID, count, self.command, self.path))
            sys.stdout.flush()

    def log_message(self, format, *args):
        pass


ThreadingHTTPServer.daemon_threads = True
ThreadingHTTPServer(('127.0.0.1', int(os.environ['PORT'])), Handler).serve_forever()
