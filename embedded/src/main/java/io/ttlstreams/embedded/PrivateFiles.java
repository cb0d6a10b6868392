package io.ttlstreams.embedded;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Directories and files of the embedded stack's secrets, readable by their owner only where the file system has POSIX
 * permissions, from the first byte on: the Connect worker's secret files and the Kafka users' credentials.
 */
final class PrivateFiles {

    private static final Set<PosixFilePermission> OWNER_ONLY_DIRECTORY = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> OWNER_ONLY_FILE = PosixFilePermissions.fromString("rw-------");

    private PrivateFiles() {}

    /** Creates {@code directory} (and its parents) if needed, and makes it its owner's only. */
    static void createDirectory(Path directory) throws IOException {
        if (posix(directory.getParent())) {
            Files.createDirectories(directory.getParent());
            if (!Files.isDirectory(directory)) {
                Files.createDirectory(directory, PosixFilePermissions.asFileAttribute(OWNER_ONLY_DIRECTORY));
            }
            Files.setPosixFilePermissions(directory, OWNER_ONLY_DIRECTORY);
        } else {
            Files.createDirectories(directory);
        }
    }

    /**
     * Creates {@code file} anew, its owner's only, to be written; a file there is deleted first, so that the new one
     * has its permissions from the first byte on.
     */
    static void createFile(Path file) throws IOException {
        Files.deleteIfExists(file);
        if (posix(file.getParent())) {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(OWNER_ONLY_FILE));
        } else {
            Files.createFile(file);
        }
    }

    /** Writes {@code text} to {@code file}, created anew as {@link #createFile} does. */
    static void write(Path file, String text) throws IOException {
        createFile(file);
        Files.writeString(file, text, StandardCharsets.UTF_8, StandardOpenOption.WRITE);
    }

    private static boolean posix(Path path) {
        return path.getFileSystem().supportedFileAttributeViews().contains("posix");
    }
}
