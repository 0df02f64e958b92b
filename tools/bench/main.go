// Command bench is the provider's Terraform-level benchmark: it plans (-cmd plan) or applies (-cmd
// apply, a fresh state) N kafka_partition_offsets data sources of one topic (or of topics of
// -per-topic partitions), and one
// kafka_topic_offsets of a 10,000-partition topic, against an in-process kfake cluster (whose
// writes reach the client -rtt later), with this provider, with the kadm reference provider
// (tools/benchref) and with this provider built from other checkouts (-providers
// this,old=/tmp/main-export,kadm), and prints, per case, the medians of -runs runs: connections
// the cluster accepted, requests by API, the wall time of the terraform command and the
// provider's peak RSS, and the ratios of each provider to the last one.
//
// Peak RSS and CPU time: Terraform starts the provider binary of a dev_overrides directory; there
// it is a script that runs the real binary under /usr/bin/time -f "%M %U %S", so the figures are
// the kernel's maximum resident set size of the provider process itself (the largest, when
// Terraform starts it more than once in a plan), not Terraform's, and the CPU time (user and
// system) of every provider process of the plan: the part of a plan the provider can change.
//
// The big reads (-topics TxP, -groups N) are applied (their state is their output):
// kafka_topics_offsets over T topics of P partitions and kafka_consumer_groups over N groups with
// a commit each, one cluster per case shared by its runs, beside kadm's own client doing the same
// work without Terraform (the column kadm-direct: this program run again with -direct, under the
// same /usr/bin/time), and the size of the data source's state JSON (its attributes in
// terraform.tfstate). -log off,trace runs the partition cases in the default environment and with
// TF_LOG=TRACE (to a file, TF_LOG_PATH): what a user pays for logging.
//
//	go run ./tools/bench -n 200 -runs 3 -rtt 0,1ms,20ms -wide 10000 -cmd plan,apply  (make bench)
//	go run ./tools/bench -n 200 -runs 3 -rtt 0,20ms -wide 0 -brokers 3    (make bench: leaders spread)
//	go run ./tools/bench -n 0 -wide 0 -topics 10000x100 -groups 20000 -runs 1    (the big reads, full size)
//
// The clusters of many topics (-held TxP,...) measure the reads that ask what the cluster holds
// (held_reads.go): kafka_consumer_group_offsets without topics, beside the same with topics named
// (the column this-topics) and kadm's Lag, and kafka_consumer_groups:
//
//	go run ./tools/bench -n 0 -wide 0 -held 5000x20,20000x5 -held-reads 1,10,100 -held-groups 10 -runs 5 -rtt 0
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

var (
	ns        = flag.String("n", "200", "kafka_partition_offsets data sources in the partition cases, comma-separated (0: no such case)")
	perTopic  = flag.Int("per-topic", 0, "partitions of each topic in the partition cases: the data sources spread over as many such topics as they need (0: one topic with a partition for each). The kadm provider lists every partition of a data source's topic on each read, so with one topic its cost grows with the square of the data sources")
	wide      = flag.Int("wide", 10000, "partitions of the topic in the kafka_topic_offsets case (0: no such case)")
	topicsF   = flag.String("topics", "", "TOPICSxPARTITIONS of the kafka_topics_offsets case, e.g. 10000x100 (empty: no such case)")
	groups    = flag.Int("groups", 0, "groups, each with one commit, of the kafka_consumer_groups case (0: no such case)")
	brokers   = flag.Int("brokers", 1, "brokers of the kfake cluster; partition leaders are spread over them")
	runs      = flag.Int("runs", 3, "plans per case and provider (the median is printed)")
	rtts      = flag.String("rtt", "0,20ms", "simulated round trips, comma-separated")
	providers = flag.String("providers", "this,kadm",
		"providers to compare: this, kadm (the reference), or NAME=DIR (this provider built from the checkout in DIR, e.g. another branch)")
	commands = flag.String("cmd", "plan", "Terraform commands to measure in the partition cases, comma-separated: plan, apply")
	logs     = flag.String("log", "off", "logging of the partition cases, comma-separated: off (the default environment), trace (TF_LOG=TRACE to a file)")
	direct   = flag.String("direct", "", "internal: run kadm's own client on the big read named (topics, groups) against -addr, and exit")
	addr     = flag.String("addr", "", "internal: the cluster of -direct")
)

// directName is the column of kadm's own client in the big reads.
const directName = "kadm-direct"

type result struct {
	wall        time.Duration
	rssKiB      int
	cpu         time.Duration // of the provider processes, user and system
	connections int64
	requests    map[int16]int
	stateBytes  int // of the data sources' attributes in terraform.tfstate (apply only)
}

// scenario is one case: its configuration, the cluster it reads, and how it is run.
type scenario struct {
	name, config string
	seed         []kfake.Opt
	prepare      func(c *kfake.Cluster) // commits the case needs, before any run
	commands     []string
	logs         []string
	direct       string    // the -direct read of kadm's own client beside it, if any
	variants     []variant // columns of this provider on another configuration, before the reference
}

// variant is a column of this provider on a configuration of its own.
type variant struct{ name, config string }

func main() {
	flag.Parse()
	log.SetFlags(0)
	if *direct != "" {
		runDirect(*direct, *addr)
		return
	}
	work, err := os.MkdirTemp("", "tfbench")
	if err != nil {
		log.Fatal(err)
	}
	defer func() { _ = os.RemoveAll(work) }()
	bins := map[string]string{}
	var names []string
	for _, p := range strings.Split(*providers, ",") {
		name, dir, _ := strings.Cut(p, "=")
		bins[name] = build(work, name, dir)
		names = append(names, name)
	}
	for _, rttS := range strings.Split(*rtts, ",") {
		rtt, err := time.ParseDuration(rttS)
		if err != nil {
			log.Fatalf("-rtt: %v", err)
		}
		for _, sc := range scenarios() {
			measure(work, sc, rtt, names, bins)
		}
	}
}

// scenarios are the cases the flags ask for.
func scenarios() []scenario {
	cmds, logModes := strings.Split(*commands, ","), strings.Split(*logs, ",")
	var out []scenario
	for _, nS := range strings.Split(*ns, ",") {
		n, err := strconv.Atoi(nS)
		if err != nil {
			log.Fatalf("-n: %v", err)
		}
		if n == 0 {
			continue
		}
		out = append(out, partitionsScenario(n, cmds, logModes))
	}
	if *wide > 0 {
		out = append(out, scenario{name: fmt.Sprintf("kafka_topic_offsets on %d partitions", *wide),
			config:   "data \"kafka_topic_offsets\" \"t\" {\n  topic = \"wide\"\n}\n",
			seed:     []kfake.Opt{kfake.SeedTopics(int32(*wide), "wide")},
			commands: cmds, logs: []string{"off"}})
	}
	if *topicsF != "" {
		out = append(out, topicsScenario(*topicsF))
	}
	if *groups > 0 {
		out = append(out, groupsScenario(*groups))
	}
	return append(out, heldScenarios()...)
}

// partitionsScenario is n kafka_partition_offsets, each of its own partition: of one topic, or of
// topics of -per-topic partitions.
func partitionsScenario(n int, cmds, logModes []string) scenario {
	if *perTopic <= 0 {
		return scenario{name: fmt.Sprintf("%d kafka_partition_offsets of one topic", n),
			config:   fmt.Sprintf("data \"kafka_partition_offsets\" \"p\" {\n  count     = %d\n  topic     = \"bench\"\n  partition = count.index\n}\n", n),
			seed:     []kfake.Opt{kfake.SeedTopics(int32(n), "bench")},
			commands: cmds, logs: logModes}
	}
	per := *perTopic
	var names []string
	for i := 0; i*per < n; i++ {
		names = append(names, fmt.Sprintf("bench-%d", i))
	}
	return scenario{name: fmt.Sprintf("%d kafka_partition_offsets of %d topics of %d partitions", n, len(names), per),
		config: fmt.Sprintf("data \"kafka_partition_offsets\" \"p\" {\n  count     = %d\n  topic     = \"bench-${floor(count.index / %d)}\"\n  partition = count.index %% %d\n}\n",
			n, per, per),
		seed:     []kfake.Opt{kfake.SeedTopics(int32(per), names...)},
		commands: cmds, logs: logModes}
}

// measure runs sc with each provider on one cluster, for each command and logging, and prints
// the medians.
func measure(work string, sc scenario, rtt time.Duration, names []string, bins map[string]string) {
	dl := &acctest.DelayedListener{Delay: rtt}
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(*brokers), kfake.ListenFn(dl.Listen)}, sc.seed...)...)
	must(err)
	defer c.Close()
	if sc.prepare != nil {
		sc.prepare(c)
	}
	counts := acctest.CountRequests(c)
	columns := names
	if len(sc.variants) > 0 {
		columns = slices.Clone(names[:len(names)-1])
		for _, v := range sc.variants {
			columns = append(columns, v.name)
		}
		columns = append(columns, names[len(names)-1])
	}
	if sc.direct != "" {
		columns = append(slices.Clone(columns), directName)
	}
	configs := map[string]string{}
	if len(sc.variants) > 0 && bins["this"] == "" {
		log.Fatalf("%s: its columns %v run this provider: -providers must name this", sc.name, sc.variants)
	}
	for _, v := range sc.variants {
		configs[v.name] = v.config
	}
	for _, logMode := range sc.logs {
		for _, command := range sc.commands {
			fmt.Printf("\n### %s, %d broker(s), round trip %s, logging %s (medians of %d runs of terraform %s)\n\n",
				sc.name, *brokers, rtt, logMode, *runs, command)
			// Runs alternate between the providers, so that all see the same load of a shared
			// machine.
			all := map[string][]result{}
			for i := 0; i < *runs; i++ {
				for _, p := range columns {
					before, accepted := counts(), dl.Accepted.Load()
					var r result
					if config, ok := configs[p]; ok {
						r = run(work, bins["this"], command, logMode, c.ListenAddrs()[0], config)
					} else if p == directName {
						r = runDirectMeasured(work, sc.direct, c.ListenAddrs()[0])
					} else {
						r = run(work, bins[p], command, logMode, c.ListenAddrs()[0], sc.config)
					}
					r.connections = dl.Accepted.Load() - accepted
					r.requests = minus(counts(), before)
					all[p] = append(all[p], r)
				}
			}
			med := map[string]result{}
			for _, p := range columns {
				med[p] = median(all[p])
			}
			printTable(med, columns, command)
		}
	}
}

// minus is the requests counted between two snapshots.
func minus(after, before map[int16]int) map[int16]int {
	out := maps.Clone(after)
	for k, v := range before {
		out[k] -= v
	}
	return out
}

// build compiles a provider (from the checkout in src, if any) into
// work/<name>/bin/terraform-provider-kafka.real and writes the dev_overrides wrapper that
// measures its peak RSS, and a CLI configuration pointing at it.
func build(work, name, src string) string {
	pkg := map[string]string{"this": ".", "kadm": "./tools/benchref"}[name]
	if src != "" {
		pkg = "."
	}
	if pkg == "" {
		log.Fatalf("unknown provider %q (this, kadm, NAME=DIR)", name)
	}
	dir := filepath.Join(work, name)
	binary := filepath.Join(dir, "terraform-provider-kafka.real")
	cmd := exec.Command("go", "build", "-o", binary, pkg)
	cmd.Dir = src
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		log.Fatalf("building %s: %v", name, err)
	}
	bin := filepath.Join(dir, "bin")
	must(os.MkdirAll(bin, 0o755))
	script := fmt.Sprintf("#!/bin/sh\nexec /usr/bin/time -a -o \"$BENCH_RSS_FILE\" -f '%%M %%U %%S' %q \"$@\"\n", binary)
	must(os.WriteFile(filepath.Join(bin, "terraform-provider-kafka"), []byte(script), 0o755))
	rc := fmt.Sprintf("provider_installation {\n  dev_overrides {\n    \"kafka-offsets/kafka\" = %q\n  }\n  direct {}\n}\n", bin)
	must(os.WriteFile(filepath.Join(dir, "terraformrc"), []byte(rc), 0o644))
	return dir
}

// run runs terraform command (plan, or apply of a fresh state) on config with the provider in dir
// against the cluster at address and measures it.
func run(work, dir, command, logMode, address, config string) result {
	tf, err := os.MkdirTemp(work, "plan")
	must(err)
	defer func() { _ = os.RemoveAll(tf) }()
	providerBlock := fmt.Sprintf("provider \"kafka\" {\n  bootstrap_servers = [%q]\n}\n", address)
	head := "terraform {\n  required_providers {\n    kafka = { source = \"kafka-offsets/kafka\" }\n  }\n}\n"
	must(os.WriteFile(filepath.Join(tf, "main.tf"), []byte(head+providerBlock+config), 0o644))
	rssFile := filepath.Join(tf, "rss")
	args := map[string][]string{"plan": {"plan", "-refresh=true"}, "apply": {"apply", "-auto-approve"}}[command]
	if args == nil {
		log.Fatalf("-cmd: unknown command %q (plan, apply)", command)
	}
	cmd := exec.Command("terraform", append(args, "-input=false", "-no-color", "-lock=false")...)
	cmd.Dir = tf
	cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE="+filepath.Join(dir, "terraformrc"), "BENCH_RSS_FILE="+rssFile,
		"TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1", "KAFKA_TIMEOUT=10m") // the big reads outlast the 30 s default on a loaded machine
	switch logMode {
	case "off":
	case "trace":
		cmd.Env = append(cmd.Env, "TF_LOG=TRACE", "TF_LOG_PATH="+filepath.Join(tf, "terraform.log"))
	default:
		log.Fatalf("-log: unknown logging %q (off, trace)", logMode)
	}
	start := time.Now()
	out, err := cmd.CombinedOutput()
	wall := time.Since(start)
	if err != nil {
		log.Fatalf("terraform %s with %s: %v\n%s", command, dir, err, out)
	}
	res := timeFile(rssFile)
	res.wall = wall
	if command == "apply" {
		res.stateBytes = stateSize(filepath.Join(tf, "terraform.tfstate"))
	}
	return res
}

// timeFile reads the lines /usr/bin/time -f '%M %U %S' appended to file: the largest peak RSS
// and the sum of the CPU times.
func timeFile(file string) result {
	var res result
	data, _ := os.ReadFile(file)
	for _, line := range strings.Split(string(data), "\n") {
		var kib int
		var user, sys float64
		if _, err := fmt.Sscanf(line, "%d %f %f", &kib, &user, &sys); err != nil {
			continue // time's "Command exited with non-zero status" lines
		}
		res.rssKiB = max(res.rssKiB, kib)
		res.cpu += time.Duration((user + sys) * float64(time.Second))
	}
	return res
}

// stateSize is the size of the data sources' attributes in a state file, as compact JSON.
func stateSize(file string) int {
	data, err := os.ReadFile(file)
	must(err)
	var state struct {
		Resources []struct {
			Instances []struct {
				Attributes json.RawMessage `json:"attributes"`
			} `json:"instances"`
		} `json:"resources"`
	}
	must(json.Unmarshal(data, &state))
	size := 0
	for _, r := range state.Resources {
		for _, in := range r.Instances {
			compact, err := json.Marshal(in.Attributes) // RawMessage: compacted
			must(err)
			size += len(compact)
		}
	}
	return size
}

// median keeps, for each figure, its median over rs.
func median(rs []result) result {
	mid := len(rs) / 2
	out := result{requests: map[int16]int{}}
	pick := func(f func(r result) int64) int64 {
		vs := make([]int64, len(rs))
		for i, r := range rs {
			vs[i] = f(r)
		}
		slices.Sort(vs)
		return vs[mid]
	}
	out.wall = time.Duration(pick(func(r result) int64 { return int64(r.wall) }))
	out.cpu = time.Duration(pick(func(r result) int64 { return int64(r.cpu) }))
	out.rssKiB = int(pick(func(r result) int64 { return int64(r.rssKiB) }))
	out.connections = pick(func(r result) int64 { return r.connections })
	out.stateBytes = int(pick(func(r result) int64 { return int64(r.stateBytes) }))
	for _, r := range rs {
		for k := range r.requests {
			out.requests[k] = int(pick(func(r result) int64 { return int64(r.requests[k]) }))
		}
	}
	return out
}

// printTable prints the medians of each provider and, when there are several, the ratio of each
// to the last one (the reference: kadm, or kadm's own client in the big reads).
func printTable(med map[string]result, names []string, command string) {
	ref, others := names[len(names)-1], names[:len(names)-1]
	fmt.Printf("| | %s |", strings.Join(names, " | "))
	for _, nme := range others {
		fmt.Printf(" %s/%s |", nme, ref)
	}
	fmt.Printf("\n|---|%s\n", strings.Repeat("---|", len(names)+len(others)))
	row := func(label string, f func(r result) float64, format string) {
		fmt.Printf("| %s |", label)
		for _, nme := range names {
			fmt.Printf(" "+format+" |", f(med[nme]))
		}
		for _, nme := range others {
			if f(med[ref]) == 0 {
				fmt.Printf(" |")
				continue
			}
			fmt.Printf(" %.2f× |", f(med[nme])/f(med[ref]))
		}
		fmt.Println()
	}
	row("connections opened", func(r result) float64 { return float64(r.connections) }, "%.0f")
	keys := map[int16]bool{int16(kmsg.ApiVersions): true, int16(kmsg.Metadata): true, int16(kmsg.ListOffsets): true}
	for _, r := range med {
		for k, v := range r.requests {
			keys[k] = keys[k] || v > 0
		}
	}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		if keys[k] {
			row(kmsg.NameForKey(k)+" requests", func(r result) float64 { return float64(r.requests[k]) }, "%.0f")
		}
	}
	row(command+" wall time (s)", func(r result) float64 { return r.wall.Seconds() }, "%.2f")
	row("provider CPU time (s)", func(r result) float64 { return r.cpu.Seconds() }, "%.2f")
	row("provider peak RSS (MiB)", func(r result) float64 { return float64(r.rssKiB) / 1024 }, "%.1f")
	if med[names[0]].stateBytes > 0 {
		row("state JSON (MiB)", func(r result) float64 { return float64(r.stateBytes) / (1 << 20) }, "%.2f")
		row("peak RSS / state JSON", func(r result) float64 {
			if r.stateBytes == 0 {
				return 0
			}
			return float64(r.rssKiB) * 1024 / float64(r.stateBytes)
		}, "%.1f")
	}
}

func must(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
