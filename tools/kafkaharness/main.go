// Command kafkaharness runs a single-node Kafka on loopback through
// internal/kafkaharness (stage 1 of replacing tools/kafka.sh, issue 20).
//
//	kafkaharness download        fetch the jars into the cache only
//	kafkaharness run -- CMD ARGS start a node, run CMD with KAFKA_BOOTSTRAP_SERVERS,
//	                             KAFKA_BROKER_LOG, KAFKA_LIBS, KAFKA_BROKER_IDS and
//	                             KAFKA_BROKER_1_ADDR and the TLS/SASL listeners'
//	                             variables (KAFKA_{SSL,MTLS,SASL_PLAINTEXT,SASL_SSL}_
//	                             BOOTSTRAP_SERVERS, KAFKA_TEST_*) set as kafka.sh run
//	                             does, stop the node; exit with CMD's status
//	kafkaharness streams-app     build the streams group tests' app once; print
//	                             its class path besides the broker's jars
//
// It reads KAFKA_VERSION, KAFKA_CACHE_DIR, KAFKA_ACLS=0, KAFKA_EXTRA_PROPERTIES,
// KAFKA_KEEP_WORKDIR=1 and KAFKA_TIERED=1 as kafka.sh does.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaharness"
)

func main() {
	code, err := run(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "kafkaharness:", err)
	}
	os.Exit(code)
}

func usage() (int, error) {
	return 2, errors.New("usage: kafkaharness download | streams-app | run -- CMD [ARGS...]")
}

func run(args []string) (int, error) {
	if len(args) == 0 {
		return usage()
	}
	// SIGINT/SIGTERM end the context: the node is stopped in order, not orphaned.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	o, err := options()
	if err != nil {
		return 1, err
	}
	switch {
	case args[0] == "download":
		libs, err := kafkaharness.Jars(ctx, o)
		if err != nil {
			return 1, err
		}
		fmt.Println(libs)
		return 0, nil
	case args[0] == "streams-app":
		return printed(kafkaharness.StreamsApp(ctx, o))
	case args[0] == "run" && len(args) > 2 && args[1] == "--":
		return runWith(ctx, o, args[2:])
	}
	return usage()
}

// options are kafka.sh's environment variables, as far as stage 1 supports them.
func options() (kafkaharness.Options, error) {
	wd, err := os.Getwd()
	if err != nil {
		return kafkaharness.Options{}, err
	}
	pom, err := kafkaharness.FindPom(wd)
	if err != nil {
		return kafkaharness.Options{}, err
	}
	return kafkaharness.Options{
		Version: os.Getenv("KAFKA_VERSION"),
		Cache:   os.Getenv("KAFKA_CACHE_DIR"),
		Pom:     pom,
		NoACLs:  os.Getenv("KAFKA_ACLS") == "0",
		Extra:   os.Getenv("KAFKA_EXTRA_PROPERTIES"),
		KeepDir: os.Getenv("KAFKA_KEEP_WORKDIR") == "1",
		Tiered:  os.Getenv("KAFKA_TIERED") == "1",
	}, nil
}

// runWith starts a node, runs the command against it and always stops it.
func runWith(ctx context.Context, o kafkaharness.Options, argv []string) (code int, err error) {
	s, err := kafkaharness.StartSingle(ctx, o)
	if err != nil {
		return 1, err
	}
	defer func() {
		if serr := s.Stop(); serr != nil {
			err = errors.Join(err, serr)
			if code == 0 {
				code = 1
			}
		}
	}()
	fmt.Fprintf(os.Stderr, "kafkaharness: Kafka %s ready at %s (pid %d)\n", s.Version, s.Bootstrap(), s.Node.Pid())
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(),
		"KAFKA_BOOTSTRAP_SERVERS="+s.Bootstrap(),
		"KAFKA_BROKER_LOG="+s.Node.LogPath(),
		"KAFKA_LIBS="+s.Libs,
		"KAFKA_BROKER_IDS=1",
		"KAFKA_BROKER_1_ADDR="+s.Bootstrap(),
		"KAFKA_SSL_BOOTSTRAP_SERVERS="+s.SSLBootstrap(),
		"KAFKA_MTLS_BOOTSTRAP_SERVERS="+s.MTLSBootstrap(),
		"KAFKA_TEST_CA_FILE="+s.TLS.CA,
		"KAFKA_TEST_CLIENT_CERT_FILE="+s.TLS.ClientCert,
		"KAFKA_TEST_CLIENT_KEY_FILE="+s.TLS.ClientKey,
		"KAFKA_SASL_PLAINTEXT_BOOTSTRAP_SERVERS="+s.SASLBootstrap(),
		"KAFKA_SASL_SSL_BOOTSTRAP_SERVERS="+s.SASLSSLBootstrap(),
		"KAFKA_TEST_SASL_USERNAME="+s.SASL.User,
		"KAFKA_TEST_SASL_PASSWORD="+s.SASL.Password,
		"KAFKA_TEST_OAUTH_PRINCIPAL="+kafkaharness.OAuthPrincipal)
	err = cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), nil
	}
	if err != nil {
		return 1, err
	}
	return 0, nil
}

// printed prints a verb's result line on stdout.
func printed(line string, err error) (int, error) {
	if err != nil {
		return 1, err
	}
	fmt.Println(line)
	return 0, nil
}
