package io.ttlstreams.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.stream.Stream;

/**
 * Installs the embedded Connect worker's plugins into its {@code plugin.path}: the directories the build packed into
 * this module's resources ({@value #RESOURCE}), laid out as {@code connect/Dockerfile} installs them on a production
 * worker. {@code mongo-kafka-connect/} holds the connectors' {@code all} jar, which bundles the MongoDB driver they
 * pin (4.7), the sink guard's jars (the mark commands' write model, which the sink connector loads) and a jar of
 * {@code META-INF/services} entries naming the connectors; {@code ttl-streams-sink-guard/} is the guard's own plugin.
 *
 * <p>Connect loads each directory in a class loader of its own that looks in the plugin first: the connectors run on
 * their driver while the processor in the same JVM runs on its own, newer one, and neither is on the other's
 * classpath, as on a real worker. Installed afresh at every start, so that a reused data directory never runs an
 * older build's plugins.
 */
final class ConnectPlugins {

    /** The resource directory the build packs the plugins into (module embedded's pom, prepare-package). */
    static final String RESOURCE = "connect-plugins";

    private ConnectPlugins() {}

    /**
     * Replaces {@code pluginPath} with a copy of the packed plugin directories.
     *
     * @param pluginPath the worker's {@code plugin.path}, owned by the stack
     * @throws EmbeddedStackException when the plugins were not packed (a build that stopped before
     *     {@code prepare-package}) or cannot be copied
     */
    static void install(Path pluginPath) {
        URL packed = ConnectPlugins.class.getClassLoader().getResource(RESOURCE);
        if (packed == null) {
            throw new EmbeddedStackException("The Connect worker's plugins (" + RESOURCE
                    + "/) are not on the classpath:" + " build module embedded with `mvn package`, which packs them");
        }
        try {
            EmbeddedStack.deleteRecursively(pluginPath);
            if (packed.getProtocol().equals("jar")) {
                Path jar = Path.of(((JarURLConnection) packed.openConnection())
                        .getJarFileURL()
                        .toURI());
                try (FileSystem jarFiles = FileSystems.newFileSystem(jar)) {
                    copyTree(jarFiles.getPath(RESOURCE), pluginPath);
                }
            } else {
                copyTree(Path.of(packed.toURI()), pluginPath);
            }
        } catch (IOException | UncheckedIOException | URISyntaxException e) {
            throw new EmbeddedStackException(
                    "Could not install the Connect worker's plugins from " + packed + " into " + pluginPath, e);
        }
    }

    private static void copyTree(Path source, Path target) throws IOException {
        try (Stream<Path> files = Files.walk(source)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                // A zip file system's paths do not resolve against the default one's: go through their names.
                Path copy = target.resolve(source.relativize(file).toString());
                if (Files.isDirectory(file)) {
                    Files.createDirectories(copy);
                } else {
                    Files.copy(file, copy, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }
}
