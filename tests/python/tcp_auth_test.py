"""optrace.Client over TCP (optraced --listen) against a real daemon that
identifies callers by bearer tokens: the token file (token_file=, or
OPTRACE_TOKEN_FILE) makes every call, streams included, the caller's own;
without it the daemon answers UnauthenticatedError, saying what is missing;
a token file other users may read is refused before anything is sent."""

import os
import shutil
import socket
import subprocess
import tempfile
import unittest

import optrace
from optrace_testing import DaemonTestCase

TOKEN = "python-test-token-3c5e7a9b1d2f4680"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


PORT = free_port()
ADDRESS = f"127.0.0.1:{PORT}"
TOKEN_FOLDER = tempfile.mkdtemp(prefix="optrace-tcp-tokens-")
os.chmod(TOKEN_FOLDER, 0o700)
# The daemon's file for this test's uid, which the test reads as its own copy.
TOKEN_FILE = os.path.join(TOKEN_FOLDER, str(os.getuid()))
with open(os.open(TOKEN_FILE, os.O_WRONLY | os.O_CREAT, 0o600), "w") as _f:
    _f.write(TOKEN + "\n")


class TcpAuthTest(DaemonTestCase):
    daemon_args = ("--listen", ADDRESS, "--listen-token-dir", TOKEN_FOLDER)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(TOKEN_FOLDER, ignore_errors=True)

    def setUp(self):
        super().setUp()
        self.saved_env = os.environ.pop("OPTRACE_TOKEN_FILE", None)

    def tearDown(self):
        if self.saved_env is not None:
            os.environ["OPTRACE_TOKEN_FILE"] = self.saved_env
        else:
            os.environ.pop("OPTRACE_TOKEN_FILE", None)
        super().tearDown()

    def test_TokenFile_UnaryAndStreamingCallsAreTheCallers(self):
        report, session = self.run_producer("ops_program.py", 0, 0, 4)
        with optrace.Client(server=ADDRESS, token_file=TOKEN_FILE) as client:
            self.assertIn(report["pid"], [s.pid for s in client.sessions(all=True)])
            self.assertEqual(len(list(client.ops(session.id))), len(list(self.client.ops(session.id))))
            listener = client.status().listeners[0]
            self.assertEqual((listener.kind, listener.address, listener.token_users,
                              listener.unauthenticated), ("grpc", ADDRESS, 1, False))
            tail = client.tail()
            tail.close()
            self.assertEqual(list(tail), [])

    def test_TokenFileEnvironment_UsedForServer(self):
        os.environ["OPTRACE_TOKEN_FILE"] = TOKEN_FILE
        with optrace.Client(server=ADDRESS) as client:
            self.assertIsNotNone(client.status().version)

    def test_NoToken_UnauthenticatedErrorSayingWhatIsMissing(self):
        with optrace.Client(server=ADDRESS) as client:
            for call in (client.sessions, client.status, lambda: list(client.ops(1)),
                         lambda: next(client.tail())):
                with self.subTest(call=call):
                    with self.assertRaises(optrace.UnauthenticatedError) as raised:
                        call()
                    self.assertIn("--token-file", str(raised.exception))
                    self.assertEqual(raised.exception.code, "UNAUTHENTICATED")

    def test_Malicious_WrongToken_UnauthenticatedError(self):
        wrong = os.path.join(self.folder, "wrong")
        with open(os.open(wrong, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
            f.write("guessed-token-0123456789abcdef\n")
        with optrace.Client(server=ADDRESS, token_file=wrong) as client:
            with self.assertRaises(optrace.UnauthenticatedError) as raised:
                client.sessions()
            self.assertNotIn("guessed", str(raised.exception))

    def test_Malicious_TokenFileReadableByOthers_PermissionErrorNamingFileAndMode(self):
        leaky = os.path.join(self.folder, "leaky")
        with open(leaky, "w") as f:
            f.write(TOKEN + "\n")
        os.chmod(leaky, 0o644)
        with self.assertRaises(PermissionError) as raised:
            optrace.Client(server=ADDRESS, token_file=leaky)
        self.assertIn(f"token_file {leaky} is owned by uid {os.getuid()}", str(raised.exception))
        self.assertIn("with mode 0644", str(raised.exception))
        self.assertNotIn(TOKEN, str(raised.exception))

    def test_TcpCredentialsForTheSocket_ValueError(self):
        for kwargs in ({"token_file": TOKEN_FILE}, {"tls_cert": "c.pem", "tls_key": "k.pem"}):
            with self.subTest(**kwargs):
                with self.assertRaises(ValueError):
                    optrace.Client(socket=self.daemon.socket, **kwargs)
        with self.assertRaises(ValueError):
            optrace.Client(server=ADDRESS, tls_cert="c.pem")


CERTIFICATES_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir,
                                   "support", "make_test_certificates.sh")
TLS_ADDRESS = f"127.0.0.1:{free_port()}"
CERTIFICATES = tempfile.mkdtemp(prefix="optrace-tcp-certs-")
subprocess.run(["/bin/sh", CERTIFICATES_SCRIPT, CERTIFICATES], check=True, capture_output=True)


class TlsClientCertificateTest(DaemonTestCase):
    daemon_args = ("--listen", TLS_ADDRESS,
                   "--tls-cert", os.path.join(CERTIFICATES, "server.pem"),
                   "--tls-key", os.path.join(CERTIFICATES, "server.key"),
                   "--tls-client-ca", os.path.join(CERTIFICATES, "ca.pem"))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(CERTIFICATES, ignore_errors=True)

    def tls_client(self, name=None):
        files = {}
        if name is not None:
            files = {"tls_cert": os.path.join(CERTIFICATES, f"{name}.pem"),
                     "tls_key": os.path.join(CERTIFICATES, f"{name}.key")}
        return optrace.Client(server=TLS_ADDRESS, tls_ca=os.path.join(CERTIFICATES, "ca.pem"),
                              **files)

    def test_ClientCertificate_NamesTheUser(self):
        with self.tls_client("root") as client:
            listener = client.status().listeners[0]
            self.assertEqual((listener.tls, listener.client_certificates, listener.token_users),
                             (True, True, 0))

    def test_NoCertificate_UnauthenticatedErrorSayingWhatIsMissing(self):
        with self.tls_client() as client:
            with self.assertRaises(optrace.UnauthenticatedError) as raised:
                client.sessions()
            self.assertIn("a TLS client certificate signed by its tls_client_ca",
                          str(raised.exception))


if __name__ == "__main__":
    unittest.main()
