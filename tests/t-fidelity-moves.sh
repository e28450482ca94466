#!/bin/sh
# Renames, mode changes, symbolic links and changes of type reach the
# copy as they are in the working tree.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"
. "$top_srcdir/tests/fidelity-lib.sh"

# Renames, with git mv and with plain mv, of files and a directory.
new_repo "$T/renames"
mkdir -p lib/sub
for f in a b c d; do
	printf 'file %s\n' $f >$f.txt
done
printf 'in lib\n' >lib/sub/x.c
git add -A && git commit -q -m files
git mv a.txt a-moved.txt
git mv b.txt lib/b.txt
printf 'edited after git mv\n' >>lib/b.txt
mv c.txt c-moved.txt
mv d.txt lib/sub/d.txt
git mv lib/sub lib/renamed-sub
mv src source
copy_is_working_state "renames by git mv and mv"
ok "a renamed file is at its new name" copy_has a-moved.txt f
ok "and not at its old one" copy_lacks a.txt
ok "a plainly moved file is at its new name" copy_has c-moved.txt f
ok "and not at its old one" copy_lacks c.txt
ok "a plainly moved directory is at its new name" copy_has source/main.c f
ok "and not at its old one" copy_lacks src

# Modes, both ways, staged and not, and with a content edit.
new_repo "$T/modes"
printf '#!/bin/sh\n' >exec-staged.sh
printf 'plain\n' >plain.txt
chmod +x exec-staged.sh
git add -A && git commit -q -m modes
chmod +x hello.txt
chmod -x run.sh
chmod -x exec-staged.sh
git add exec-staged.sh
chmod +x plain.txt
printf 'edited too\n' >>plain.txt
printf '#!/bin/sh\n' >new-exec.sh
chmod 0755 new-exec.sh
copy_is_working_state "mode changes"
ok "+x arrived" copy_has hello.txt f 0755
ok "-x arrived" copy_has run.sh f 0644
ok "a staged -x arrived" copy_has exec-staged.sh f 0644
ok "+x with an edit arrived" copy_has plain.txt f 0755
ok "an untracked executable kept its mode" copy_has new-exec.sh f 0755

# Symbolic links: retargeted (staged and not), new, dangling, absolute,
# pointing at a directory, never followed.
new_repo "$T/links"
ln -s hello.txt to-file
ln -s src to-dir
ln -s missing dangling
ln -s hello.txt staged-link
git add -A && git commit -q -m links
ln -sfn run.sh to-file
ln -sfn src/main.c to-dir-now-file
rm to-dir && ln -s . to-dir
ln -sfn still-missing dangling
ln -sfn run.sh staged-link
git add staged-link
ln -s /nonexistent/forge/target absolute
ln -s "$T/outside" outside-link
printf 'outside the repository\n' >"$T/outside"
copy_is_working_state "symlink retargets"
ok "a retargeted link points at its new target" copy_has to-file l
ok "the link was not followed" \
    grep -q "^to-file	l	0777	6	run\.sh\$" "$T/copy-all.m"
ok "a link out of the repository stays a link" copy_has outside-link l

# Changes of type: file to symlink, symlink to file, file to directory,
# directory to file, staged and not.
new_repo "$T/types"
mkdir -p dir-to-file dir-to-file-staged
printf 'f\n' >file-to-link
printf 'f\n' >file-to-link-staged
ln -s hello.txt link-to-file
ln -s hello.txt link-to-file-staged
printf 'f\n' >file-to-dir
printf 'f\n' >file-to-dir-staged
printf 'a\n' >dir-to-file/a
printf 'b\n' >dir-to-file/b
printf 'a\n' >dir-to-file-staged/a
ln -s hello.txt link-to-dir
git add -A && git commit -q -m types
rm file-to-link file-to-link-staged
ln -s hello.txt file-to-link
ln -s run.sh file-to-link-staged
rm link-to-file link-to-file-staged
printf 'now a file\n' >link-to-file
printf 'now a file, staged\n' >link-to-file-staged
rm file-to-dir file-to-dir-staged
mkdir file-to-dir file-to-dir-staged
printf 'inside\n' >file-to-dir/inside
printf 'inside\n' >file-to-dir-staged/inside
rm -r dir-to-file dir-to-file-staged
printf 'now a file\n' >dir-to-file
printf 'now a file, staged\n' >dir-to-file-staged
rm link-to-dir
mkdir link-to-dir
printf 'inside\n' >link-to-dir/inside
git add file-to-link-staged link-to-file-staged file-to-dir-staged \
    dir-to-file-staged
copy_is_working_state "changes of type"
ok "file to symlink" copy_has file-to-link l
ok "file to symlink, staged" copy_has file-to-link-staged l
ok "symlink to file" copy_has link-to-file f
ok "symlink to file, staged" copy_has link-to-file-staged f
ok "file to directory" copy_has file-to-dir/inside f
ok "file to directory, staged" copy_has file-to-dir-staged/inside f
ok "directory to file" copy_has dir-to-file f
ok "directory to file, staged" copy_has dir-to-file-staged f
ok "symlink to directory" copy_has link-to-dir/inside f

# A symbolic link that points at itself, turned into a directory of
# staged files: the copy's checkout has the loop where the patch puts the
# directory.
new_repo "$T/loop"
ln -s loop loop
ln -s loop-b loop-a
ln -s loop-a loop-b
git add -A && git commit -q -m loops || exit 99
rm loop loop-a
mkdir loop loop-a
printf 'inside\n' >loop/inside
printf 'inside\n' >loop-a/inside
git add -A
copy_is_working_state "looping symlinks turned into directories"
ok "the directory's file arrived" copy_has loop/inside f

done_testing
