// Command terraform-provider-kafka serves the Kafka offsets provider to Terraform.
package main

import (
	"flag"
	"log"
	"os"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/provider"
)

// Generate the docs from the schema and examples: go generate ./... (make generate).
//go:generate go tool tfplugindocs generate --provider-name kafka

// version is set at build time: go build -ldflags "-X main.version=1.2.3".
var version = "dev"

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run with support for debuggers like delve")
	flag.Parse()
	if !debug { // a debug session logs to this process's own standard error, for the one debugging
		for name, value := range provider.QuietLogs(os.Environ()) {
			if err := os.Setenv(name, value); err != nil {
				log.Fatal(err.Error())
			}
		}
	}

	var opts []tf6server.ServeOpt
	if debug {
		opts = append(opts, tf6server.WithManagedDebug())
	}
	// What providerserver.Serve does, with the framework's server wrapped (provider.Server).
	if err := tf6server.Serve(provider.Address, provider.Server(version), opts...); err != nil {
		log.Fatal(err.Error())
	}
}
