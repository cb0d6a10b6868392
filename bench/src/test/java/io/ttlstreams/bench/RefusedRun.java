package io.ttlstreams.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine;

/** A bench command run that must be refused before it runs anything: exit code 2, and what it said on stderr. */
final class RefusedRun {

    private RefusedRun() {}

    /** Runs {@code command} with {@code args}, expects exit code 2, returns what it wrote to stderr. */
    static String stderr(Object command, String... args) {
        PrintStream stderr = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            assertThat(new CommandLine(command).execute(args)).isEqualTo(2);
        } finally {
            System.setErr(stderr);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }
}
