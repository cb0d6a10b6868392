package io.ttlstreams.embedded;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The embedded Connect worker's secrets directory: properties files readable by their owner only, which connector
 * configurations reference through the worker's {@code file} config provider ({@link SecretsConfigProvider}) instead
 * of holding the secrets, as in production.
 */
final class WorkerSecrets {

    private static final Pattern PRODUCTION_REFERENCE = Pattern.compile("\\$\\{file:"
            + Pattern.quote(SecretsConfigProvider.PRODUCTION_DIRECTORY) + "([A-Za-z0-9_-]+)\\.properties:([^}]+)}");

    private final Path directory;

    private WorkerSecrets(Path directory) {
        this.directory = directory;
    }

    /**
     * Creates the directory (owner only) if needed.
     *
     * @throws EmbeddedStackException if it cannot be created
     */
    static WorkerSecrets in(Path directory) {
        try {
            PrivateFiles.createDirectory(directory);
        } catch (IOException e) {
            throw new EmbeddedStackException("Embedded Connect could not create its secrets directory " + directory, e);
        }
        return new WorkerSecrets(directory);
    }

    Path directory() {
        return directory;
    }

    /**
     * Writes {@code <name>.properties} holding {@code key=value}, readable and writable by its owner only (where the
     * file system has POSIX permissions); storing a name again replaces the file.
     *
     * @param name the file name without {@code .properties}: letters, digits, {@code -} and {@code _}
     * @return the config provider reference that resolves to the value, {@code ${file:<path>:<key>}}
     * @throws EmbeddedStackException if the file cannot be written
     */
    String store(String name, String key, String value) {
        if (!name.matches("[A-Za-z0-9_-]+")) {
            throw new IllegalArgumentException("A secret's name is letters, digits, - and _ only: " + name);
        }
        Path file = directory.resolve(name + ".properties");
        Properties secret = new Properties();
        secret.setProperty(key, value);
        try {
            PrivateFiles.createFile(file);
            try (Writer writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.WRITE)) {
                secret.store(writer, null);
            }
        } catch (IOException e) {
            throw new EmbeddedStackException("Embedded Connect could not write the secret file " + file, e);
        }
        return "${file:" + file + ":" + key + "}";
    }

    /**
     * Stores {@code value} where a production reference, {@code ${file:/secrets/<name>.properties:<key>}}, finds it
     * on this worker ({@link SecretsConfigProvider}).
     *
     * @throws IllegalArgumentException when {@code reference} is not of that form
     * @throws EmbeddedStackException if the file cannot be written
     */
    void storeAt(String reference, String value) {
        Matcher matcher = PRODUCTION_REFERENCE.matcher(reference);
        if (!matcher.matches()) {
            throw new IllegalArgumentException("Not a reference to a production secret file: " + reference);
        }
        store(matcher.group(1), matcher.group(2), value);
    }
}
