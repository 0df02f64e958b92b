package kafkaclient

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"
)

// TLSConfig is the TLS material of a connection, as PEM text. The zero value means TLS with the
// system's root certificates and no client certificate.
type TLSConfig struct {
	// CACert holds one or more PEM CERTIFICATE blocks: the authorities that may sign the brokers'
	// certificates. Empty means the system roots.
	CACert string
	// ClientCert and ClientKey (PEM) are the client certificate for mutual TLS; both or neither.
	ClientCert string
	ClientKey  string // secret: never logged, never quoted in an error
	// ServerName overrides the name checked against the brokers' certificates (and sent as SNI).
	// Empty means the host of each broker address.
	ServerName string
	// InsecureSkipVerify accepts any broker certificate. For tests only.
	InsecureSkipVerify bool
}

// PEMError says why a PEM input does not parse. It never quotes the input.
type PEMError struct {
	Field  string // the input, e.g. "ca_cert"
	Reason string
}

func (e *PEMError) Error() string { return e.Field + ": " + e.Reason }

// ParseCACert checks that s holds at least one PEM certificate and returns them as a pool.
func ParseCACert(field, s string) (*x509.CertPool, error) {
	certs, err := parseCertificates(field, s)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	for _, c := range certs {
		pool.AddCert(c)
	}
	return pool, nil
}

func parseCertificates(field, s string) ([]*x509.Certificate, error) {
	rest := []byte(strings.TrimSpace(s))
	if len(rest) == 0 {
		return nil, &PEMError{Field: field, Reason: "is empty: want PEM text that starts with -----BEGIN CERTIFICATE-----"}
	}
	var certs []*x509.Certificate
	for n := 1; ; n++ {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			return nil, &PEMError{Field: field, Reason: fmt.Sprintf(
				"PEM block %d is a %q, not a CERTIFICATE (a key or request where a certificate belongs?)", n, block.Type)}
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, &PEMError{Field: field, Reason: fmt.Sprintf("certificate %d does not parse: %v", n, err)}
		}
		certs = append(certs, c)
	}
	if len(certs) == 0 {
		return nil, &PEMError{Field: field, Reason: "holds no PEM block: want PEM text that starts with " +
			"-----BEGIN CERTIFICATE----- (in Terraform, file(\"ca.pem\") reads a file; a path alone is not PEM)"}
	}
	if len(strings.TrimSpace(string(rest))) > 0 {
		return nil, &PEMError{Field: field, Reason: fmt.Sprintf(
			"has text after certificate %d that is not a PEM block (a truncated or damaged PEM?)", len(certs))}
	}
	return certs, nil
}

// ParseClientKey checks that key is a PEM private key, without quoting it.
func ParseClientKey(field, key string) error {
	rest := []byte(strings.TrimSpace(key))
	block, _ := pem.Decode(rest)
	switch {
	case len(rest) == 0:
		return &PEMError{Field: field, Reason: "is empty: want a PEM private key"}
	case block == nil:
		return &PEMError{Field: field, Reason: "holds no PEM block: want PEM text that starts with -----BEGIN PRIVATE KEY----- " +
			"(or RSA PRIVATE KEY, EC PRIVATE KEY)"}
	case block.Type == "CERTIFICATE":
		return &PEMError{Field: field, Reason: "holds a CERTIFICATE where the private key belongs (client_cert and client_key swapped?)"}
	case block.Type == "ENCRYPTED PRIVATE KEY" || block.Headers["Proc-Type"] != "":
		return &PEMError{Field: field, Reason: "is an encrypted private key: decrypt it first " +
			"(openssl pkcs8 -in key.pem -out key-plain.pem) and keep the result as a secret"}
	case !strings.HasSuffix(block.Type, "PRIVATE KEY"):
		return &PEMError{Field: field, Reason: fmt.Sprintf("holds a PEM %q block, not a private key", block.Type)}
	}
	if _, err := parsePrivateKey(block.Bytes); err != nil {
		return &PEMError{Field: field, Reason: "the private key does not parse (want PKCS#8, PKCS#1 RSA or SEC 1 EC)"}
	}
	return nil
}

func parsePrivateKey(der []byte) (any, error) {
	if k, err := x509.ParsePKCS8PrivateKey(der); err == nil {
		return k, nil
	}
	if k, err := x509.ParsePKCS1PrivateKey(der); err == nil {
		return k, nil
	}
	if k, err := x509.ParseECPrivateKey(der); err == nil {
		return k, nil
	}
	return nil, errors.New("unknown private key format")
}

// ParseClientKeyPair checks a client certificate and its key, and that they belong together.
func ParseClientKeyPair(certField, cert, keyField, key string) (tls.Certificate, error) {
	if _, err := parseCertificates(certField, cert); err != nil {
		return tls.Certificate{}, err
	}
	if err := ParseClientKey(keyField, key); err != nil {
		return tls.Certificate{}, err
	}
	pair, err := tls.X509KeyPair([]byte(cert), []byte(key))
	if err != nil {
		// crypto/tls's messages name no key material ("private key does not match public key").
		return tls.Certificate{}, &PEMError{Field: certField + " and " + keyField,
			Reason: "do not form a key pair: " + strings.TrimPrefix(err.Error(), "tls: ")}
	}
	return pair, nil
}

// NewTLSConfig builds the crypto/tls configuration of c (TLS 1.2 or later).
func NewTLSConfig(c TLSConfig) (*tls.Config, error) {
	cfg := &tls.Config{
		MinVersion:         tls.VersionTLS12,
		ServerName:         c.ServerName,
		InsecureSkipVerify: c.InsecureSkipVerify, //nolint:gosec // the user's explicit choice, documented as tests only
	}
	if c.CACert != "" {
		pool, err := ParseCACert("ca_cert", c.CACert)
		if err != nil {
			return nil, err
		}
		cfg.RootCAs = pool
	}
	switch {
	case c.ClientCert != "" && c.ClientKey != "":
		pair, err := ParseClientKeyPair("client_cert", c.ClientCert, "client_key", c.ClientKey)
		if err != nil {
			return nil, err
		}
		cfg.Certificates = []tls.Certificate{pair}
	case c.ClientCert != "":
		return nil, &PEMError{Field: "client_cert", Reason: "is set without client_key: mutual TLS needs both"}
	case c.ClientKey != "":
		return nil, &PEMError{Field: "client_key", Reason: "is set without client_cert: mutual TLS needs both"}
	}
	return cfg, nil
}
