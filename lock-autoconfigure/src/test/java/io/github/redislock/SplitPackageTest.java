package io.github.redislock;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * Each package belongs to one module of the build: the module whose main code declares it. No other module
 * may put a class there, in its main code or in its tests, because a package split over two jars fails on
 * the module path (and a test class is patched into the module it tests, so it splits that module's package
 * too). Read from the sources of every module the root pom lists, so a new module is checked without
 * touching this test.
 */
class SplitPackageTest {

    /** The repository, as the documentation tests find it: the parent of this module. */
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern MODULE = Pattern.compile("<module>\\s*([^<\\s]+)\\s*</module>");
    private static final Pattern PACKAGE = Pattern.compile("^package\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);

    @Test
    void noModulePutsClassesInAPackageOfAnotherModulesMainCode() throws IOException {
        Map<String, String> owners = new TreeMap<>();
        List<String> splits = new ArrayList<>();
        for (String module : modules(ROOT)) {
            for (String name : packages(ROOT.resolve(module).resolve("src/main/java"))) {
                String owner = owners.putIfAbsent(name, module);
                if (owner != null) {
                    splits.add(name + ": main code of " + owner + " and of " + module);
                }
            }
        }
        for (String module : modules(ROOT)) {
            for (String name : packages(ROOT.resolve(module).resolve("src/test/java"))) {
                String owner = owners.get(name);
                if (owner != null && !owner.equals(module)) {
                    splits.add(name + ": main code of " + owner + ", tests of " + module);
                }
            }
        }
        assertThat(splits).as("packages with classes in two modules").isEmpty();
    }

    @Test
    void theCheckReadsEveryModuleOfTheBuild() throws IOException {
        assertThat(modules(ROOT)).contains("lock-test-support", "lock-autoconfigure", "lock-autoconfigure-boot3",
                "sample-app", "lock-benchmarks");
        assertThat(packages(ROOT.resolve("lock-autoconfigure-boot3/src/main/java"))).isNotEmpty();
        assertThat(packages(ROOT.resolve("lock-test-support/src/main/java"))).contains("io.github.redislock.testsupport");
    }

    /** The modules of the pom in {@code directory} and, depth first, of theirs, as paths from the root. */
    private static List<String> modules(Path directory) throws IOException {
        List<String> found = new ArrayList<>();
        Matcher module = MODULE.matcher(Files.readString(directory.resolve("pom.xml")));
        while (module.find()) {
            Path path = directory.resolve(module.group(1)).normalize();
            found.add(ROOT.relativize(path).toString());
            found.addAll(modules(path));
        }
        return found;
    }

    /** The packages declared by the Java sources below {@code sources}; none if it does not exist. */
    private static Set<String> packages(Path sources) throws IOException {
        Set<String> found = new LinkedHashSet<>();
        if (!Files.isDirectory(sources)) {
            return found;
        }
        try (Stream<Path> files = Files.walk(sources)) {
            for (Path file : files.filter(path -> path.toString().endsWith(".java")).toList()) {
                Matcher declaration = PACKAGE.matcher(Files.readString(file));
                if (declaration.find()) {
                    found.add(declaration.group(1));
                }
            }
        }
        return found;
    }
}
