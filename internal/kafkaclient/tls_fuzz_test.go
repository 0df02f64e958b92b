package kafkaclient

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"strings"
	"testing"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// FuzzNewTLSConfig feeds PEM text for ca_cert, client_cert and client_key to the TLS
// configuration the provider builds (and validates while planning). Whatever the text: no panic;
// an error is a *PEMError on one of the three fields; a configuration built has TLS 1.2 at least,
// the CA pool when ca_cert is set, and the client certificate only when crypto/tls takes the pair;
// a key accepted alone is one crypto/x509 parses; and no error shows a line of the key's base64 body.
func FuzzNewTLSConfig(f *testing.F) {
	p := newTestPKI(f)
	other := newTestPKI(f)
	rsaKey, err := rsa.GenerateKey(rand.Reader, 1024) //nolint:gosec // a seed, not a key in use
	if err != nil {
		f.Fatal(err)
	}
	ecKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ecDER, _ := x509.MarshalECPrivateKey(ecKey)
	pkcs1 := string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(rsaKey)}))
	sec1 := string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: ecDER}))
	encrypted := "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00\n\nAAAA\n-----END RSA PRIVATE KEY-----\n"
	for _, seed := range [][3]string{
		{p.caPEM, p.clientCert, p.clientKey},
		{p.caPEM + other.caPEM, p.clientCert + p.caPEM, p.clientKey},
		{"", "", ""},
		{p.caPEM, "", ""},
		{"# Mozilla bundle\n" + p.caPEM + "\n# next\n" + other.caPEM, "", ""},
		{p.caPEM + "garbage", "", ""},
		{p.clientKey, "", ""},
		{"/etc/ssl/ca.pem", "", ""},
		{"", p.clientCert, other.clientKey},
		{"", p.clientKey, p.clientCert},
		{"", p.clientCert, pkcs1},
		{"", p.clientCert, sec1},
		{"", p.clientCert, encrypted},
		{"", p.clientCert, "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n"},
		{"", p.clientCert, ""},
		{"", "", p.clientKey},
		{"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", "", ""},
		{p.caPEM[:len(p.caPEM)/2], "", ""},
	} {
		f.Add(seed[0], seed[1], seed[2])
	}
	f.Fuzz(func(t *testing.T, ca, cert, key string) {
		defer acctest.NoHang("NewTLSConfig")()
		cfg, err := NewTLSConfig(TLSConfig{CACert: ca, ClientCert: cert, ClientKey: key})
		if err != nil {
			var pe *PEMError
			if !errors.As(err, &pe) || !map[string]bool{"ca_cert": true, "client_cert": true, "client_key": true,
				"client_cert and client_key": true}[pe.Field] {
				t.Fatalf("got %#v, want a PEMError on ca_cert, client_cert or client_key", err)
			}
			if line := keyLineIn(err.Error(), key, ca+cert); line != "" {
				t.Fatalf("the error shows a line of the key %q: %s", line, err)
			}
		} else {
			_, pairErr := tls.X509KeyPair([]byte(cert), []byte(key))
			switch {
			case cfg.MinVersion < tls.VersionTLS12:
				t.Fatalf("TLS version %x allowed", cfg.MinVersion)
			case (ca != "") != (cfg.RootCAs != nil):
				t.Fatalf("ca_cert set: %v; pool: %v", ca != "", cfg.RootCAs != nil)
			case (cert != "" || key != "") && (len(cfg.Certificates) != 1 || pairErr != nil):
				t.Fatalf("client certificate built from a pair crypto/tls refuses (%v)", pairErr)
			case cert == "" && key == "" && len(cfg.Certificates) != 0:
				t.Fatal("a client certificate from nothing")
			}
		}
		if ParseClientKey("client_key", key) == nil && !x509ParsesKey(key) {
			t.Fatal("a client_key that crypto/x509 does not parse was accepted")
		}
	})
}

// keyLineIn returns a line of key's base64 body (16 base64 characters or more: key material)
// that text shows, unless the same line is in other, an input that errors may quote.
func keyLineIn(text, key, other string) string {
	for _, line := range strings.Split(key, "\n") {
		line = strings.TrimSpace(line)
		if len(line) >= 16 && strings.Trim(line, base64Chars) == "" && !strings.Contains(other, line) && strings.Contains(text, line) {
			return line
		}
	}
	return ""
}

const base64Chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="

// x509ParsesKey reports whether the first PEM block of s is a private key crypto/x509 reads.
func x509ParsesKey(s string) bool {
	block, _ := pem.Decode([]byte(strings.TrimSpace(s)))
	if block == nil {
		return false
	}
	if _, err := x509.ParsePKCS8PrivateKey(block.Bytes); err == nil {
		return true
	}
	if _, err := x509.ParsePKCS1PrivateKey(block.Bytes); err == nil {
		return true
	}
	_, err := x509.ParseECPrivateKey(block.Bytes)
	return err == nil
}
