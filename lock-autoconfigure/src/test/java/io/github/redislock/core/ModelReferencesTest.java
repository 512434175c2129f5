package io.github.redislock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The SPIN models ({@code model/lock.pml}, {@code model/rwlock.pml}) name the code each step mirrors as {@code <file>:<line> "<text>"}
 * or {@code <file> "<text>"}: each reference must still point at that text, so a script or client change
 * that moves or rewrites what the model mirrors fails the build until the model is read again.
 */
class ModelReferencesTest {

    private static final Pattern REFERENCE = Pattern.compile("([A-Za-z][A-Za-z-]*\\.(?:lua|java))(?::(\\d+))? \"([^\"]+)\"");
    /** A line number with no quoted text after it, which nothing could check. */
    private static final Pattern UNCHECKED = Pattern.compile("[A-Za-z-]+\\.(?:lua|java):\\d++(?! \")|/\\*\\s*\\d+(?:-\\d+)?(?:,\\s*\\d+)*[:\\s*]");
    /** The library's module, seen from the module the test runs in (lock-autoconfigure-boot3 runs it too). */
    private static final Path LIBRARY = ModelTrace.MODEL.resolveSibling("lock-autoconfigure");
    private static final Path SCRIPTS = LIBRARY.resolve("src/main/resources/io/github/redislock/core/script");
    private static final Path SOURCES = LIBRARY.resolve("src/main/java");

    private static final List<String> MODELS = List.of("lock.pml", "rwlock.pml", "fair.pml");

    @Test
    void everyReferenceInTheModelsPointsAtTheTextItQuotes() throws IOException {
        for (String name : MODELS) {
            referencesPointAtTheirText(name);
        }
    }

    private static void referencesPointAtTheirText(String name) throws IOException {
        String model = Files.readString(ModelTrace.MODEL.resolve(name));
        List<String> wrong = new ArrayList<>();
        int references = 0;
        Matcher matcher = REFERENCE.matcher(model);
        while (matcher.find()) {
            references++;
            String file = matcher.group(1);
            String quoted = matcher.group(3);
            List<String> lines = Files.readAllLines(resolve(file));
            if (matcher.group(2) == null) {
                if (lines.stream().noneMatch(line -> line.contains(quoted))) {
                    wrong.add(file + " no longer contains \"" + quoted + "\"");
                }
                continue;
            }
            int number = Integer.parseInt(matcher.group(2));
            String line = number <= lines.size() ? lines.get(number - 1) : "(past the end)";
            if (!line.contains(quoted)) {
                wrong.add(file + ":" + number + " is \"" + line.strip() + "\", not \"" + quoted + "\"");
            }
        }
        assertThat(references).as("references in model/" + name).isGreaterThan(name.equals("lock.pml") ? 30 : 5);
        assertThat(wrong).as("references in model/" + name + " that no longer point at what they quote").isEmpty();
    }

    @Test
    void theModelsHaveNoLineReferenceWithoutItsQuotedText() throws IOException {
        List<String> unchecked = new ArrayList<>();
        for (String name : MODELS) {
            List<String> lines = Files.readAllLines(ModelTrace.MODEL.resolve(name));
            for (int i = 0; i < lines.size(); i++) {
                if (UNCHECKED.matcher(lines.get(i)).find()) {
                    unchecked.add(name + ":" + (i + 1) + ": " + lines.get(i).strip());
                }
            }
        }
        assertThat(unchecked).isEmpty();
    }

    private static Path resolve(String file) throws IOException {
        if (file.endsWith(".lua")) {
            return SCRIPTS.resolve(file);
        }
        try (Stream<Path> sources = Files.walk(SOURCES)) {
            List<Path> found = sources.filter(path -> path.getFileName().toString().equals(file)).toList();
            assertThat(found).as("sources named " + file).hasSize(1);
            return found.get(0);
        }
    }
}
