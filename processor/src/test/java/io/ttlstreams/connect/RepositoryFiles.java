package io.ttlstreams.connect;

import java.nio.file.Files;
import java.nio.file.Path;

/** Locates files at the repository root from a test, whichever directory Maven runs it in. */
public final class RepositoryFiles {

    private RepositoryFiles() {}

    /** The repository root: the nearest ancestor of the working directory holding connect-config/. */
    public static Path root() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isDirectory(dir.resolve("connect-config")) && Files.isRegularFile(dir.resolve("pom.xml"))) {
                return dir;
            }
        }
        throw new IllegalStateException(
                "No repository root above " + Path.of("").toAbsolutePath());
    }
}
