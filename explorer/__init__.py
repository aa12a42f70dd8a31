"""The HEB Explorer app's helper layer (Streamlit allowed here, nowhere in :mod:`heb`).

Pages in ``pages/`` are short scripts of widgets and layout; everything they share lives
here, one job per module:

- :mod:`explorer.state`: URL and session state (the shared dataset, methods, settings);
- :mod:`explorer.loading`: loading and encoding the current dataset, cached per process;
- :mod:`explorer.sidebar`: the shared sidebar;
- :mod:`explorer.display`: figures with PNG / SVG / CSV downloads, capped tables, headers;
- :mod:`explorer.exports`: CSV bytes safe for spreadsheets, cells capped for the browser;
- :mod:`explorer.errors`: escaped messages and the error guard;
- :mod:`explorer.style`: the projector-friendly CSS.
"""
