#!/usr/bin/env bash
# Starts and stops a headless PulseAudio server (a null sink, no hardware, no D-Bus) for the
# tests. Source it, then:
#   pulse_start RUN_DIR  -> a user-mode daemon with its socket, state and log in RUN_DIR/pulse;
#                           sets PULSE_TEST_SERVER (unix:PATH) and PULSE_PID, or says why it
#                           could not and leaves PULSE_TEST_SERVER empty (the tests then skip)
#   pulse_stop           -> stops it by its pid
# Works as root (a user-mode daemon, which PulseAudio only warns about). Nothing outside RUN_DIR
# is touched, and PULSE_SERVER is left alone: only the tests that ask for this server use it.

pulse_start() {
    local run="$1/pulse"
    PULSE_TEST_SERVER=""
    PULSE_PID=""
    if ! command -v pulseaudio > /dev/null; then
        echo "pulse: pulseaudio is not installed; the PulseAudio tests will skip" >&2
        return 0
    fi
    mkdir -p "$run"
    chmod 700 "$run"
    HOME="$run" PULSE_RUNTIME_PATH="$run" PULSE_STATE_PATH="$run" DBUS_SESSION_BUS_ADDRESS="" \
        pulseaudio --daemonize=no -n --use-pid-file=no --exit-idle-time=-1 --disallow-exit \
        --realtime=no --high-priority=no --log-target=stderr \
        --load="module-null-sink sink_name=slipstream_test" \
        --load="module-native-protocol-unix socket=$run/native auth-anonymous=1" \
        > "$run/log" 2>&1 &
    PULSE_PID=$!
    local i
    for i in $(seq 1 50); do
        if [[ -S "$run/native" ]]; then
            PULSE_TEST_SERVER="unix:$run/native"
            export PULSE_TEST_SERVER PULSE_PID
            return 0
        fi
        kill -0 "$PULSE_PID" 2>/dev/null || break
        sleep 0.1
    done
    echo "pulse: the headless PulseAudio server did not start (the PulseAudio tests will skip); its log:" >&2
    tail -5 "$run/log" >&2
    pulse_stop
    return 0
}

pulse_stop() {
    if [[ -n "${PULSE_PID:-}" ]]; then
        kill "$PULSE_PID" 2>/dev/null || true
        wait "$PULSE_PID" 2>/dev/null || true
        PULSE_PID=""
    fi
}
