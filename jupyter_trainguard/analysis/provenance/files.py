"""Files the notebook writes and reads back: a value saved under a literal path (`df.to_csv('clean.csv')`,
`pickle.dump(X, f)` with `f = open('x.pkl', 'wb')`, `np.save`, `joblib.dump`, a network's `save`) is the same
value when that path is read again (`pd.read_csv('clean.csv')`, `pickle.load(f)`, `load_model`): its rows, the
statistics they carry, and a model's fit survive the round trip. A network loaded from a file the notebook never
names elsewhere (`load_model('cnn_v2.h5')`: trained by another notebook) is a model whose training rows are
unknown: it predicts, and scored beside others it is one more configuration."""

from __future__ import annotations

import ast
import os
import re

from ..parsed import tree_nodes
from .api.nltk_api import LEXICONS
from .astutil import PATH_KEYWORDS, call_leaf, const, path_arg
from .values import Fit, Obj, Val

# functions writing their first argument to the file named by their second (`pickle.dump(X, f)`)
VALUE_FIRST = frozenset({("pickle", "dump"), ("dill", "dump"), ("joblib", "dump"), ("torch", "save"),
                         ("cloudpickle", "dump")})
# functions writing their second argument to the file named by their first (`np.save('x.npy', X)`)
PATH_FIRST = frozenset({("numpy", "save"), ("numpy", "savetxt"), ("scipy", "save_npz")})
# methods writing their receiver to the file named by their first argument
WRITING_METHODS = frozenset({"to_csv", "to_pickle", "to_parquet", "to_feather", "to_json", "to_excel", "to_hdf",
                             "save", "save_model", "dump", "save_weights"})
VALUE_KEYWORDS = ("obj", "value", "arr", "X")  # the value a writer is given by keyword
PATH_KEYWORDS_OUT = ("file", "filename", "f", "fname")  # the file it writes to
# a library reader's keywords that pick which rows of the file it reads (`nrows=`, `skiprows=`, a sheet, some
# subfolders); Keras's `subset=` is not one: the two subsets are the two sides of one split of the same read
ROW_KEYWORDS = frozenset({"nrows", "skiprows", "skipfooter", "sheet_name", "key", "where", "start", "stop", "classes",
                          "chunksize", "max_rows"})
PATH_CALLS = frozenset({"open", "os.path.join", "posixpath.join", "ntpath.join"})  # a path from its parts
# readers of every file under a folder, its subfolders naming the classes
FOLDER_READERS = frozenset({"flow_from_directory", "image_dataset_from_directory", "text_dataset_from_directory",
                            "audio_dataset_from_directory"})
WEIGHTS_OUT = frozenset({"state_dict", "get_weights"})  # a network's weights: they stand for the trained network
WEIGHTS_IN = frozenset({"load_state_dict", "set_weights", "load_weights"})
COPIES = frozenset({("shutil", "copy"), ("shutil", "copyfile"), ("shutil", "copy2"), ("shutil", "move"),
                    ("os", "rename"), ("os", "replace")})  # (source, destination): the file's content moves


class Files:
    """Mixin: values written to a file and read back."""

    def file_path(self, node: ast.AST | None) -> str | None:
        """The file a node names: a string literal, a name bound to one, an `open(...)` handle, or a path joined
        from such parts (`os.path.join(base, "train")`, `base + "/train"`, `f"{base}/train"`, `Path(base) /
        "train"`), else None."""
        text = self._path_text(node, 0)  # (a Windows path's backslashes read as separators)
        return os.path.normpath(text.replace("\\", "/")) if isinstance(text, str) and text.strip() else None

    def _path_text(self, node: ast.AST | None, depth: int) -> str | None:
        if depth > 6 or node is None:
            return None
        if isinstance(node, ast.Name):
            v = self.env.get(node.id)
            if v is not None and v.kind == "file":
                return v.keys.get("path") if v.keys else None
            text = self.consts.get(node.id)
            return text if isinstance(text, str) else None
        if isinstance(node, ast.Constant):
            return node.value if isinstance(node.value, str) else None
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Div)):
            left, right = self._path_text(node.left, depth + 1), self._path_text(node.right, depth + 1)
            if left is None or right is None:
                return None
            return left + right if isinstance(node.op, ast.Add) else os.path.join(left, right)
        if isinstance(node, ast.JoinedStr):
            parts = [self._path_text(v.value if isinstance(v, ast.FormattedValue) else v, depth + 1)
                     for v in node.values]
            return "".join(parts) if all(isinstance(p, str) for p in parts) else None
        if not isinstance(node, ast.Call):
            return None
        q = self.parsed.qualname(node.func)
        if q in PATH_CALLS or q.rsplit(".", 1)[-1] == "Path":
            parts = [self._path_text(a, depth + 1) for a in node.args]
            if not parts or not all(isinstance(p, str) for p in parts):
                return None
            return parts[0] if q == "open" else os.path.join(*parts)
        return None

    def read_key(self, node: ast.AST | None) -> tuple | None:
        """(reader, path) of a read whose file the notebook names (`pd.read_csv(path)`), else None: two reads of
        one path by one reader hold the same rows. A reader the notebook defines may pick among the files by its
        other arguments (`ImageDataset(root, mode="val")`): they are part of what it reads."""
        if not isinstance(node, ast.Call):
            return None
        path = self.file_path(path_arg(node))
        if not path:
            return None
        f = node.func
        own = isinstance(f, ast.Name) and (f.id in self.user_classes or getattr(self.env.get(f.id), "kind", "") ==
                                           "func")
        if own:
            rest = tuple(ast.dump(a) for a in node.args[1:]) + \
                tuple((k.arg, ast.dump(k.value)) for k in node.keywords if k.arg not in PATH_KEYWORDS)
        else:
            rest = tuple((k.arg, ast.dump(k.value)) for k in node.keywords if k.arg in ROW_KEYWORDS)
        return (call_leaf(node), path, *rest)

    def literal_table(self, e: ast.Call) -> Val:
        """A table typed into the notebook (`pd.DataFrame({'a': [6, 1, 8], ...})`, or a name bound to such a
        literal): rows of its own, the same rows wherever the very same literal is built again (a lab that retypes
        its data in every cell)."""
        data = e.args[:1] or [k.value for k in e.keywords if k.arg in ("data", "object")]  # (not `columns=` alone)
        given = [self.bound_nodes.get(a.id) if isinstance(a, ast.Name) else a
                 for a in data + [k.value for k in e.keywords if k.arg not in ("data", "object")]]
        if data and all(isinstance(g, (ast.Dict, ast.List, ast.Tuple)) and _literal(g) for g in given):
            key = ("literal", tuple(ast.dump(g) for g in given))
            sid = self.read_paths.setdefault(key, ("made", next(self._ids)))
            return Val("data", rows=frozenset({(sid,)}), site=self.site(e))
        return self.source(e, "made")

    def corpus_read(self, q: str, e: ast.Call) -> Val | None:
        """`movie_reviews.words(fileid)`, `movie_reviews.words()`: texts of one NLTK corpus, the same rows whichever
        call reads them (a word list such as `stopwords.words('english')` holds no rows)."""
        corpus = q.rsplit(".", 1)[0]
        if ".corpus." not in f".{corpus}." or corpus.rsplit(".", 1)[-1] in LEXICONS:
            return None
        sid = self.read_paths.setdefault(("corpus", corpus), ("read", next(self._ids)))
        return Val("data", rows=frozenset({(sid,)}), site=self.site(e))

    def read_rows(self, key: tuple, fresh: frozenset, node: ast.AST | None) -> frozenset:
        """The rows of a read keyed by `read_key`: its own source's (`fresh`), unless it reads a whole folder
        recursively (`flow_from_directory(d)`, no `classes=`): every image under it. A folder read after one of
        its subfolders holds that subfolder's rows too (`Dataset/` after `Dataset/Train`); one read after a
        folder above it is a part of that folder's rows. Sibling folders share none."""
        if key[0] not in FOLDER_READERS or len(key) > 2:
            return fresh
        path = key[1]
        if path not in self.folder_reads:
            self.folder_reads[path] = self._folder_rows(path, fresh, node)
        return self.folder_reads[path]

    def _folder_rows(self, path: str, fresh: frozenset, node: ast.AST | None) -> frozenset:
        parent = max((p for p in self.folder_reads if path.startswith(p + os.sep)), key=len, default=None)
        if parent is not None:
            return self.select(Val("data", rows=self.folder_reads[parent]), ("folder", path), "part", "folder",
                               node).rows
        inside = [rows for p, rows in self.folder_reads.items() if p.startswith(path + os.sep)]
        return frozenset().union(fresh, *inside)

    def file_io(self, q: str, e: ast.Call) -> tuple | None:
        """`open(path)` (a handle naming its file) and the functions that write a value to a file: `(value,)` when
        the call is one of them, else None."""
        if q == "open":
            path = self.file_path(e.args[0]) if e.args else None
            return (Val("file", keys={"path": path}, site=self.site(e)) if path else None,)
        root, leaf = q.split(".", 1)[0], q.rsplit(".", 1)[-1]
        value, path = _given(e, 0, VALUE_KEYWORDS), _given(e, 1, PATH_KEYWORDS_OUT)  # (`dump(obj=m, file=f)`)
        if (root, leaf) in PATH_FIRST:
            path, value = _given(e, 0, PATH_KEYWORDS_OUT), _given(e, 1, VALUE_KEYWORDS)
        if (root, leaf) in VALUE_FIRST | PATH_FIRST and value is not None and path is not None:
            self.wrote(self.file_path(path), self.expr(value), path)
        elif (root, leaf) in COPIES and len(e.args) >= 2:
            self.wrote(self.file_path(e.args[1]), self.written.get(self.file_path(e.args[0]) or ""))
        else:
            return None
        return (None,)

    def file_method(self, recv: Val, attr: str, e: ast.Call) -> tuple | None:
        """`df.to_csv('clean.csv')`, `model.save('m.h5')`: the receiver is what the file holds. A network's weights
        (`model.state_dict()`) stand for the network; loaded into another network (`net.load_state_dict(
        torch.load('best.pt'))` of a file the notebook wrote them to) they make it that trained network. `(what the
        call returns,)` when the call is one of these, else None."""
        if recv.kind == "file":
            return self.handle_method(recv, attr, e)
        if recv.kind == "obj" and recv.obj is not None and attr in WEIGHTS_OUT:  # a snapshot: the fit it has now
            return (Val("obj", obj=Obj(recv.obj.cls, recv.obj.role, recv.obj.site, fit=recv.obj.fit),
                        site=self.site(e)),)
        if recv.kind == "obj" and recv.obj is not None and attr in WEIGHTS_IN:
            return (None,) if self.weights_loaded(recv.obj, attr, e) else None
        path = self.file_path(path_arg(e)) if attr in WRITING_METHODS else None
        if attr not in WRITING_METHODS or not (recv.is_data or recv.kind == "obj") or \
                path is None and self.loop_path(path_arg(e)) is None:
            return None
        self.wrote(path, recv, path_arg(e))
        return (None,)

    def handle_method(self, handle: Val, attr: str, e: ast.Call) -> tuple | None:
        """A file handle of a literal path: `fp.write(text)` adds what it writes to what the file holds (rows written
        one by one in a loop: all of them); `fp.read()` / `fp.readlines()` of a file the notebook wrote return it."""
        path = (handle.keys or {}).get("path")
        if attr in ("write", "writelines") and e.args:
            v = self.expr(e.args[0])
            if path is not None and v is not None and v.is_data:
                before = self.written.get(path)
                self.written[path] = v if before is None or not before.is_data else self.derive(e, [before, v])
            return (None,)
        if attr in ("read", "readlines", "readline") and path is not None and path in self.written:
            got = self.written[path]
            return (got._replace(site=self.site(e), name=None) if got.is_data else None,)
        return None

    def weights_loaded(self, obj: Obj, attr: str, e: ast.Call) -> bool:
        """`net.load_state_dict(weights)`: the network takes the fit of the network the weights came from, as it
        was when they were taken (`init = net.get_weights()` before training, restored later: no fit)."""
        if not e.args:
            return False
        path = self.file_path(e.args[0]) if attr == "load_weights" else None
        got = self.written.get(path) if path is not None else self.expr(e.args[0])
        src = got.obj if got is not None and got.kind == "obj" else None
        if src is None or src is obj:
            return False
        obj.fit = src.fit  # (None: the weights of a snapshot taken before any training, a reset)
        return True

    def wrote(self, path: str | None, v: Val | None, node: ast.AST | None = None) -> None:
        if v is None or not (v.is_data or v.kind == "obj"):
            return
        if path is not None:
            self.written[path] = v
        elif v.kind == "obj" and v.obj.fit is not None and (pattern := self.loop_path(node)) is not None:
            self.loop_written.append((pattern, v))  # `pickle.dump(m, open('model_' + str(i) + '.sav', 'wb'))`

    def loop_path(self, node: ast.AST | None) -> str | None:
        """A path built from literals and a loop's counter (`'model_' + str(i) + '.sav'`, `f'fold{k}.h5'`): a
        regular expression for the paths its passes name, else None."""
        loop_names = set().union(*self.loop_vars) if self.loop_vars else set()
        parts = _path_parts(node, loop_names, 0) if loop_names else None
        return "".join(parts) if parts and any(p == ".+" for p in parts) and any(p != ".+" for p in parts) \
            else None

    def read_back(self, node: ast.AST | None) -> Val | None:
        """What a read returns when the notebook wrote that file earlier: the value written, at the read's site.
        A model saved by every pass of a loop over folds under a name made from the pass's counter, read back by
        one literal name after the loop, is the model of some pass: trained on other folds' rows, so on every row
        the folds were cut from (a held-out fold of the last pass included)."""
        if not (self.written or self.loop_written) or not isinstance(node, ast.Call):
            return None
        path = self.file_path(path_arg(node))
        v = self.written.get(path) if path is not None else None
        if v is None and path is not None and not self.loop_vars:
            v = next((w for pattern, w in reversed(self.loop_written) if re.fullmatch(pattern, path)), None)
            if v is not None:
                obj, fit = v.obj, v.obj.fit
                rows = frozenset(_before_folds(tok, self.rec.selections) for tok in fit.rows)
                other = Obj(obj.cls, obj.role, obj.site)
                other.fit = Fit(fit.kind, fit.cls, rows, fit.stats, fit.site, obj=other, data_name=fit.data_name,
                                data_site=fit.data_site, via=self.site(node))
                v = Val("obj", obj=other, site=v.site)
        return v._replace(site=self.site(node), name=None) if v is not None else None

    def model_from_elsewhere_file(self, q: str, e: ast.Call) -> Val | None:
        """`keras.models.load_model(path)` of a path no cell run so far names elsewhere (no `save`, no checkpoint
        writes it): a model trained elsewhere, on rows the notebook does not show."""
        if q.rsplit(".", 1)[-1] != "load_model" or q.split(".", 1)[0] not in ("keras", "tensorflow", "load_model"):
            return None
        path = const(path_arg(e))
        if not isinstance(path, str) or not path.strip() or self.read_back(e) is not None or \
                self.string_counts.get(path, 0) > 1:
            return None
        obj = Obj(q, "model", self.site(e))
        obj.fit = Fit("model", q, frozenset(), frozenset(), self.site(e), obj=obj, data_name=path)
        return Val("obj", obj=obj, site=self.site(e))

    def note_strings(self, tree: ast.Module) -> None:
        """Count the string literals of a cell about to run: a path named in a cell run so far (a `save`, a
        checkpoint) is one the notebook may have written."""
        for node in tree_nodes(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) < 300:
                self.string_counts[node.value] = self.string_counts.get(node.value, 0) + 1


def _path_parts(node: ast.AST | None, loop_names: set, depth: int) -> list[str] | None:
    """The pieces of a path built with a loop counter: escaped literals and `.+` for the counter."""
    if depth > 6 or node is None:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [re.escape(node.value)]
    if isinstance(node, ast.Name) and node.id in loop_names or isinstance(node, ast.Call) and \
            isinstance(node.func, ast.Name) and node.func.id == "str" and len(node.args) == 1 and \
            isinstance(node.args[0], ast.Name) and node.args[0].id in loop_names:
        return [".+"]
    if isinstance(node, ast.FormattedValue):
        return _path_parts(node.value, loop_names, depth + 1)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _path_parts(node.left, loop_names, depth + 1), _path_parts(node.right, loop_names, depth + 1)
        return left + right if left is not None and right is not None else None
    if isinstance(node, ast.JoinedStr):
        parts = [_path_parts(v, loop_names, depth + 1) for v in node.values]
        return [p for part in parts for p in part] if all(p is not None for p in parts) else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "open" and node.args:
        return _path_parts(node.args[0], loop_names, depth + 1)
    return None


def _before_folds(tok: tuple, selections: dict) -> tuple:
    """A row token cut before its first fold step: every row the folds were cut from."""
    for k, (key, _part) in enumerate(tok[1:], start=1):
        sel = selections.get(key)
        if sel is not None and sel.kind == "folds":
            return tok[:k]
    return tok


def _literal(node: ast.AST) -> bool:
    """Values typed in: only constants inside (nested lists, tuples and dicts of them), and some of them (an empty
    list bound to a name is filled later: `xs = []` then `xs.append(...)` in each call is new rows every time)."""
    nodes = list(ast.walk(node))
    typed = (ast.Constant, ast.Dict, ast.List, ast.Tuple, ast.Load, ast.UnaryOp, ast.USub)
    return sum(isinstance(n, ast.Constant) for n in nodes) >= 4 and all(isinstance(n, typed) for n in nodes)


def _given(e: ast.Call, i: int, names: tuple) -> ast.expr | None:
    """The call's `i`-th positional argument, else its first keyword among `names`."""
    return e.args[i] if len(e.args) > i else next((k.value for k in e.keywords if k.arg in names), None)
