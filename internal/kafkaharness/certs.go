package kafkaharness

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// ClientCN is the test client certificate's subject: the MTLS listener's
// principal is User:CN=tfacc-client.
const ClientCN = "tfacc-client"

// certValidity is 2 days: a work dir never lives that long.
const certValidity = 48 * time.Hour

// TLSFiles are the PEM files makeCerts writes into a work dir's tls/.
type TLSFiles struct {
	CA         string // the test CA (KAFKA_TEST_CA_FILE); its key is not kept
	ClientCert string // CN=tfacc-client (KAFKA_TEST_CLIENT_CERT_FILE)
	ClientKey  string // PKCS#8 (KAFKA_TEST_CLIENT_KEY_FILE)
	Keystore   string // broker key + certificate + CA, Kafka's ssl.keystore.type=PEM
}

// makeCerts writes a CA, a broker certificate for localhost/127.0.0.1 and a
// client certificate, all EC P-256, with
// openssl. No key is committed anywhere: each start makes its own.
func makeCerts(dir string) (TLSFiles, error) {
	t := filepath.Join(dir, "tls")
	f := TLSFiles{
		CA: filepath.Join(t, "ca.pem"), ClientCert: filepath.Join(t, "client.pem"),
		ClientKey: filepath.Join(t, "client.key"), Keystore: filepath.Join(t, "broker-keystore.pem"),
	}
	if err := os.MkdirAll(t, 0o700); err != nil {
		return f, err
	}
	now := time.Now().Add(-time.Minute) // a little slack for the JVM's clock reading
	ca := &x509.Certificate{
		Subject: pkix.Name{CommonName: "tfacc test CA"}, NotBefore: now, NotAfter: now.Add(certValidity),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	caDER, caKey, err := sign(ca, nil, nil)
	if err != nil {
		return f, err
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return f, err
	}
	broker := &x509.Certificate{
		Subject: pkix.Name{CommonName: "localhost"}, NotBefore: now, NotAfter: now.Add(certValidity),
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	brokerDER, brokerKey, err := sign(broker, caCert, caKey)
	if err != nil {
		return f, err
	}
	client := &x509.Certificate{
		Subject: pkix.Name{CommonName: ClientCN}, NotBefore: now, NotAfter: now.Add(certValidity),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	clientDER, clientKey, err := sign(client, caCert, caKey)
	if err != nil {
		return f, err
	}
	brokerKeyPEM, err := pkcs8PEM(brokerKey)
	if err != nil {
		return f, err
	}
	clientKeyPEM, err := pkcs8PEM(clientKey)
	if err != nil {
		return f, err
	}
	caPEM := pemBlock("CERTIFICATE", caDER)
	keystore := bytes.Join([][]byte{brokerKeyPEM, pemBlock("CERTIFICATE", brokerDER), caPEM}, nil)
	for path, body := range map[string][]byte{
		f.CA: caPEM, f.Keystore: keystore,
		f.ClientCert: pemBlock("CERTIFICATE", clientDER), f.ClientKey: clientKeyPEM,
	} {
		if err := os.WriteFile(path, body, 0o600); err != nil {
			return f, err
		}
	}
	return f, nil
}

// sign makes a fresh P-256 key for tmpl and returns the certificate's DER
// signed with parentKey, or self-signed when parent is nil (the CA).
func sign(tmpl, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) ([]byte, *ecdsa.PrivateKey, error) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	if tmpl.SerialNumber, err = rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127)); err != nil {
		return nil, nil, err
	}
	if parent == nil {
		parent, parentKey = tmpl, k
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &k.PublicKey, parentKey)
	return der, k, err
}

// pemBlock encodes DER as PEM.
func pemBlock(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

// pkcs8PEM is key as unencrypted PKCS#8 PEM, the form Kafka's PEM key store reads.
func pkcs8PEM(k *ecdsa.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		return nil, err
	}
	return pemBlock("PRIVATE KEY", der), nil
}
