"""Certificates for the push simulator: a fresh CA and a server certificate for localhost, made at start."""

from __future__ import annotations

import datetime
import ipaddress
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


@dataclass(frozen=True)
class CertificateFiles:
    ca_file: Path  # the CA that signed the server certificate: what clients must trust
    other_ca_file: Path  # an unrelated CA, for tests of a wrong trust configuration
    cert_file: Path
    key_file: Path


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _self_signed_ca(common_name: str, now: datetime.datetime) -> tuple[ec.EllipticCurvePrivateKey, x509.Certificate]:
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(_name(common_name))
        .issuer_name(_name(common_name))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=30))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True, key_cert_sign=True, crl_sign=True, content_commitment=False,
                key_encipherment=False, data_encipherment=False, key_agreement=False, encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    return key, cert


def _pem(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.PEM)


def generate(directory: Path) -> CertificateFiles:
    """Writes ca.pem, other-ca.pem, server.pem and server-key.pem into `directory` (created if missing)."""
    directory.mkdir(parents=True, exist_ok=True)
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key, ca_cert = _self_signed_ca("push-simulator test CA", now)
    _, other_ca_cert = _self_signed_ca("push-simulator unrelated CA", now)
    server_key = ec.generate_private_key(ec.SECP256R1())
    server_cert = (
        x509.CertificateBuilder()
        .subject_name(_name("localhost"))
        .issuer_name(ca_cert.subject)
        .public_key(server_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=30))
        .add_extension(
            x509.SubjectAlternativeName([
                x509.DNSName("localhost"),
                x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                x509.IPAddress(ipaddress.ip_address("::1")),
            ]),
            critical=False,
        )
        .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False
        )
        .sign(ca_key, hashes.SHA256())
    )
    files = CertificateFiles(
        ca_file=directory / "ca.pem",
        other_ca_file=directory / "other-ca.pem",
        cert_file=directory / "server.pem",
        key_file=directory / "server-key.pem",
    )
    files.ca_file.write_bytes(_pem(ca_cert))
    files.other_ca_file.write_bytes(_pem(other_ca_cert))
    files.cert_file.write_bytes(_pem(server_cert) + _pem(ca_cert))
    files.key_file.write_bytes(
        server_key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    files.key_file.chmod(0o600)
    return files


class ClientAuthority:
    """A CA for TLS client certificates shaped like Apple's APNs provider certificates: the subject's UID is the
    app's bundle id (the certificate's topic) and its CN "Apple Push Services: <bundle id>"."""

    def __init__(self, common_name: str):
        self.now = datetime.datetime.now(datetime.timezone.utc)
        self.key, self.certificate = _self_signed_ca(common_name, self.now)

    def write_ca(self, path: Path) -> Path:
        path.write_bytes(_pem(self.certificate))
        return path

    def issue(self, directory: Path, topic: str, password: str | None) -> tuple[Path, Path]:
        """Writes a client certificate for `topic` and its key (encrypted with `password` if given) into
        `directory`; returns (certificate file, key file)."""
        directory.mkdir(parents=True, exist_ok=True)
        key = ec.generate_private_key(ec.SECP256R1())
        subject = x509.Name([
            x509.NameAttribute(NameOID.USER_ID, topic),
            x509.NameAttribute(NameOID.COMMON_NAME, f"Apple Push Services: {topic}"),
        ])
        certificate = (
            x509.CertificateBuilder()
            .subject_name(subject)
            .issuer_name(self.certificate.subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(self.now - datetime.timedelta(minutes=5))
            .not_valid_after(self.now + datetime.timedelta(days=30))
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
            .sign(self.key, hashes.SHA256())
        )
        serial = format(certificate.serial_number, "x")[:16]
        certificate_file = directory / f"client-{serial}.pem"
        key_file = directory / f"client-{serial}-key.pem"
        certificate_file.write_bytes(_pem(certificate))
        encryption = (
            serialization.BestAvailableEncryption(password.encode()) if password else serialization.NoEncryption()
        )
        key_file.write_bytes(
            key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, encryption)
        )
        key_file.chmod(0o600)
        return certificate_file, key_file


def certificate_topic(der: bytes) -> str | None:
    """The topic (subject UID) of a DER client certificate, or None if it names none."""
    names = x509.load_der_x509_certificate(der).subject.get_attributes_for_oid(NameOID.USER_ID)
    return str(names[0].value) if names else None
