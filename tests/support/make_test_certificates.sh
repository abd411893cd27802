#!/bin/sh
# Makes TLS certificates for tests of optraced's TCP listener in FOLDER
# (which must exist), with Debian's openssl: nothing secret is kept in the
# tree. EC P-256 keys, valid for 2 days:
#   ca.pem, ca.key                   a CA
#   server.pem, server.key           the daemon's, for 127.0.0.1 and localhost, signed by ca
#   nobody.pem, root.pem, stranger-name.pem (and .key)
#                                    clients signed by ca, common names "nobody", "root"
#                                    and "no-such-user-optrace-test"
#   stranger.pem, stranger.key       a client of another CA, common name "root"
# Usage: make_test_certificates.sh FOLDER
set -e
cd "$1"
key() {
  openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:prime256v1 -out "$1.key" 2>/dev/null
}
ca() { key "$1"; openssl req -x509 -new -key "$1.key" -out "$1.pem" -days 2 -subj "/CN=$1"; }
signed() {  # FILE CA COMMON-NAME EXTENSIONS
  key "$1"
  openssl req -new -key "$1.key" -out "$1.csr" -subj "/CN=$3"
  echo "$4" > "$1.ext"
  openssl x509 -req -in "$1.csr" -CA "$2.pem" -CAkey "$2.key" -CAcreateserial -out "$1.pem" \
    -days 2 -extfile "$1.ext" 2>/dev/null
}
ca ca
ca other-ca
signed server ca localhost "subjectAltName=IP:127.0.0.1,DNS:localhost"
signed nobody ca nobody "basicConstraints=CA:FALSE"
signed root ca root "basicConstraints=CA:FALSE"
signed stranger-name ca no-such-user-optrace-test "basicConstraints=CA:FALSE"
signed stranger other-ca root "basicConstraints=CA:FALSE"
