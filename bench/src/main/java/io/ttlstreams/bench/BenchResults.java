package io.ttlstreams.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Where a bench run's figures go: the printed tables, one CSV file each, {@code results.json} and the summary within
 * it.
 */
final class BenchResults {

    final PrintStream stdout = System.out;
    final Map<String, Object> summary = new LinkedHashMap<>();
    final Map<String, Object> json = new LinkedHashMap<>();

    private final Path out;
    private final Map<String, Object> environment;

    /**
     * @param out the directory the files go to
     * @param environment the machine and versions, which every CSV file names
     */
    BenchResults(Path out, Map<String, Object> environment) {
        this.out = out;
        this.environment = environment;
    }

    /** Prints a titled table of {@code columns}, writes every column to {@code <name>.csv} and the JSON. */
    void section(String title, String name, List<Map<String, Object>> rows, List<String> columns) {
        stdout.println();
        stdout.println(title);
        Table.print(stdout, rows, columns);
        writeCsv(name + ".csv", rows);
        json.put(name.replace('-', '_'), rows);
    }

    void writeCsv(String name, List<Map<String, Object>> rows) {
        writeFile(name, Table.csv(rows, environment));
    }

    void writeFile(String name, String content) {
        try {
            Files.writeString(out.resolve(name), content, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Removes a file an earlier run of another mode left, so that a directory never mixes runs. */
    void dropFile(String name) {
        try {
            Files.deleteIfExists(out.resolve(name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String verdict(boolean met) {
        return met ? "met" : "MISSED";
    }

    static String ratios(double[] ratios) {
        return Arrays.stream(ratios).mapToObj(Table::text).collect(Collectors.joining(", "));
    }
}
