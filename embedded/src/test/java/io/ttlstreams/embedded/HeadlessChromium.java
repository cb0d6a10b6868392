package io.ttlstreams.embedded;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Debian's {@code chromium} in headless mode, to check a page as a browser renders it: the DOM after its scripts ran,
 * or a screenshot. Each run gets a fresh profile directory and stays off the network but for the page.
 */
public final class HeadlessChromium {

    private static final long TIMEOUT_SECONDS = 90;

    private final Path binary;
    private final Path workDirectory;

    private HeadlessChromium(Path binary, Path workDirectory) {
        this.binary = binary;
        this.workDirectory = workDirectory;
    }

    /** Chromium from the PATH (Debian installs {@code /usr/bin/chromium}); empty when it is not installed. */
    public static Optional<HeadlessChromium> find(Path workDirectory) {
        for (String directory : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
            for (String name : List.of("chromium", "chromium-browser")) {
                Path candidate = Path.of(directory, name);
                if (Files.isExecutable(candidate)) {
                    return Optional.of(new HeadlessChromium(candidate, workDirectory));
                }
            }
        }
        return Optional.empty();
    }

    /** The DOM after the page's scripts had {@code virtualTimeMillis} of (virtual) time to run. */
    public String dumpDom(URI page, long virtualTimeMillis) throws IOException, InterruptedException {
        return run(List.of("--virtual-time-budget=" + virtualTimeMillis, "--dump-dom", page.toString()));
    }

    /** A PNG screenshot of the page at the given window size. */
    public void screenshot(URI page, long virtualTimeMillis, int width, int height, Path png)
            throws IOException, InterruptedException {
        Files.createDirectories(png.toAbsolutePath().getParent());
        run(List.of(
                "--virtual-time-budget=" + virtualTimeMillis,
                "--window-size=" + width + "," + height,
                "--hide-scrollbars",
                "--screenshot=" + png.toAbsolutePath(),
                page.toString()));
        if (!Files.isRegularFile(png)) {
            throw new IOException("chromium wrote no screenshot to " + png);
        }
    }

    private String run(List<String> arguments) throws IOException, InterruptedException {
        Path profile = Files.createTempDirectory(workDirectory, "chromium-profile-");
        List<String> command = new ArrayList<>(List.of(
                binary.toString(),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--user-data-dir=" + profile));
        command.addAll(arguments);
        Path errors = workDirectory.resolve("chromium-stderr.txt");
        Process process =
                new ProcessBuilder(command).redirectError(errors.toFile()).start();
        byte[] out = process.getInputStream().readAllBytes();
        if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IOException("chromium did not finish within " + TIMEOUT_SECONDS + " s");
        }
        if (process.exitValue() != 0) {
            throw new IOException("chromium exited with " + process.exitValue() + ": " + Files.readString(errors));
        }
        return new String(out, StandardCharsets.UTF_8);
    }
}
