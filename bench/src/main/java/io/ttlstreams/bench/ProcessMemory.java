package io.ttlstreams.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** A process's resident memory, from {@code /proc/<pid>/status} (Linux); "unknown" elsewhere. */
final class ProcessMemory {

    private ProcessMemory() {}

    /** {@code "RSS 412 MB (peak 530 MB)"}, or "unknown". */
    static String describe(long pid) {
        try {
            String rss = null;
            String peak = null;
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    rss = megabytes(line);
                } else if (line.startsWith("VmHWM:")) {
                    peak = megabytes(line);
                }
            }
            return rss == null ? "unknown" : "RSS " + rss + " MB (peak " + peak + " MB)";
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    private static String megabytes(String line) {
        long kilobytes = Long.parseLong(line.replaceAll("[^0-9]", ""));
        return Long.toString(kilobytes / 1024);
    }
}
