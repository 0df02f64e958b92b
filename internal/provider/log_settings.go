package provider

import (
	"path"
	"strings"
)

// Terraform and OpenTofu start a provider with their own environment, read its logs from its
// standard error (JSON lines, over go-plugin) and show them only when TF_LOG, TF_LOG_PROVIDER or
// TF_LOG_PATH asks (TF_LOG_CORE: their own lines only). Left alone, the plugin SDK logs every
// request at TRACE all the same, which Terraform then parses and drops: half of a large plan's
// time. Where nothing in the environment asks for logs, QuietLogs turns the SDK's and this
// provider's loggers off; where anything does, it changes nothing, so TF_LOG=TRACE shows every
// line as before.

// logRequests are the prefixes of the variables that ask Terraform, OpenTofu or the plugin SDK
// (its test sink included) for logs.
var logRequests = []string{"TF_LOG", "TF_ACC_LOG", "TOFU_LOG"}

// QuietLogs returns the variables to set, before the provider serves, so that it logs nothing
// when environ (os.Environ's form) asks for no logs; nil when it asks for any.
func QuietLogs(environ []string) map[string]string {
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		for _, prefix := range logRequests {
			if strings.HasPrefix(name, prefix) && value != "" {
				return nil
			}
		}
	}
	return map[string]string{
		"TF_LOG_SDK":           "OFF", // terraform-plugin-go's root SDK logger
		"TF_LOG_SDK_PROTO":     "OFF", // its protocol subsystem: a line per request and more
		"TF_LOG_SDK_FRAMEWORK": "OFF", // terraform-plugin-framework's subsystem
		providerLogVariable:    "OFF", // this provider's own tflog lines
	}
}

// providerLogVariable sets the level of this provider's own logger: terraform-plugin-go names it
// after the provider type of Address, upper case, "-" as "_" (its ProviderLoggerName). Terraform's
// TF_LOG_PROVIDER filters what Terraform shows, not what the provider writes.
var providerLogVariable = "TF_LOG_PROVIDER_" + strings.ToUpper(strings.ReplaceAll(path.Base(Address), "-", "_"))
