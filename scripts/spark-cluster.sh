#!/usr/bin/env bash
# A Spark standalone cluster on 127.0.0.1 from the pyspark wheel (no Spark download):
# one master and N workers, each a `spark-class` java process.
#
#   scripts/spark-cluster.sh start DIR [WORKERS [CORES [MEMORY]]]   # default 2 workers, 1 core, 1g each
#   scripts/spark-cluster.sh stop DIR
#
# `start` picks free ports, writes logs and pids under DIR, waits until every worker has
# registered with the master, and prints the master URL (spark://127.0.0.1:PORT), also
# written to DIR/master-url. `stop` ends the processes it started (by their pids in DIR).
# PYTHON (default python3) is the Python whose pyspark package is used; java must be on
# PATH (openjdk-17-jre-headless). TESSERA_SPARK_WAIT (default 180) is how many seconds
# `start` waits for the workers before it gives up.
set -euo pipefail

usage() { sed -n '2,13p' "$0" >&2; exit 2; }
[ $# -ge 2 ] || usage
command=$1
dir=$2
python=${PYTHON:-python3}

stop() {
  local pidfile pid
  for pidfile in "$dir"/worker-*.pid "$dir"/master.pid; do
    [ -f "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    if kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 100); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
      done
      kill -9 "$pid" 2>/dev/null || true
    fi
    rm -f "$pidfile"
  done
}

free_port() {
  "$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

case "$command" in
  start)
    workers=${3:-2}
    cores=${4:-1}
    memory=${5:-1g}
    command -v java >/dev/null || { echo "spark-cluster.sh: java is not on PATH (apt-get install openjdk-17-jre-headless)" >&2; exit 1; }
    spark_home=$("$python" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    stop
    export SPARK_HOME=$spark_home SPARK_LOCAL_IP=127.0.0.1 SPARK_LOG_DIR=$dir SPARK_PID_DIR=$dir
    trap 'stop' ERR
    port=$(free_port)
    ui=$(free_port)
    nohup "$spark_home/bin/spark-class" org.apache.spark.deploy.master.Master \
      --host 127.0.0.1 --port "$port" --webui-port "$ui" >"$dir/master.log" 2>&1 </dev/null &
    echo $! >"$dir/master.pid"
    url="spark://127.0.0.1:$port"
    for i in $(seq 1 "$workers"); do
      mkdir -p "$dir/worker-$i"
      nohup "$spark_home/bin/spark-class" org.apache.spark.deploy.worker.Worker \
        --host 127.0.0.1 --cores "$cores" --memory "$memory" --webui-port "$(free_port)" \
        --work-dir "$dir/worker-$i" "$url" >"$dir/worker-$i.log" 2>&1 </dev/null &
      echo $! >"$dir/worker-$i.pid"
    done
    # Ready when the master's status page lists every worker alive.
    wait_s=${TESSERA_SPARK_WAIT:-180}
    deadline=$((SECONDS + wait_s))
    while :; do
      alive=$(curl -fsS "http://127.0.0.1:$ui/json/" 2>/dev/null \
        | "$python" -c 'import json, sys; print(json.load(sys.stdin).get("aliveworkers", 0))' 2>/dev/null || echo 0)
      [ "$alive" -ge "$workers" ] && break
      for pidfile in "$dir"/master.pid "$dir"/worker-*.pid; do
        if ! kill -0 "$(cat "$pidfile")" 2>/dev/null; then
          echo "spark-cluster.sh: $(basename "$pidfile" .pid) exited; its log:" >&2
          tail -n 30 "$dir/$(basename "$pidfile" .pid).log" >&2
          stop
          exit 1
        fi
      done
      if [ "$SECONDS" -ge "$deadline" ]; then
        echo "spark-cluster.sh: $alive of $workers workers registered after ${wait_s}s; logs in $dir" >&2
        stop
        exit 1
      fi
      sleep 0.5
    done
    echo "$url" >"$dir/master-url"
    echo "http://127.0.0.1:$ui" >"$dir/master-ui"
    echo "$url"
    ;;
  stop)
    [ -d "$dir" ] || exit 0
    stop
    ;;
  *)
    usage
    ;;
esac
