#!/usr/bin/python3
"""npm_registry.py DIR PORTFILE - the smallest npm registry, for npx tests.

Serves the one package in DIR (its package.json and files, packed as
npm packs them) on 127.0.0.1 at a free port: GET /NAME is its packument,
GET /NAME.tgz the tarball.  The port goes to PORTFILE, in one write (a
fifo the test reads).  Runs until killed.  Standard library
only; loopback only.
"""
import base64
import hashlib
import http.server
import io
import json
import os
import sys
import tarfile


def main():
    pkgdir, portfile = sys.argv[1], sys.argv[2]
    man = json.load(open(os.path.join(pkgdir, "package.json")))
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as t:
        for f in sorted(os.listdir(pkgdir)):
            t.add(os.path.join(pkgdir, f), arcname="package/" + f)
    tgz = buf.getvalue()
    name, ver = man["name"], man["version"]

    class Registry(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            port = self.server.server_address[1]
            if self.path.lstrip("/") == name:
                v = dict(man, dist={
                    "tarball": "http://127.0.0.1:%d/%s.tgz" % (port, name),
                    "shasum": hashlib.sha1(tgz).hexdigest(),
                    "integrity": "sha512-" + base64.b64encode(
                        hashlib.sha512(tgz).digest()).decode()})
                body = json.dumps({"name": name, "dist-tags": {"latest": ver},
                                   "versions": {ver: v}}).encode()
                kind = "application/json"
            elif self.path == "/%s.tgz" % name:
                body, kind = tgz, "application/octet-stream"
            else:
                self.send_response(404)
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    srv = http.server.HTTPServer(("127.0.0.1", 0), Registry)
    with open(portfile, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    srv.serve_forever()


if __name__ == "__main__":
    main()
