// The operators' app: one script (this shell) that loads each page's script when the page is first shown.
import './styles.css';
import { render } from 'preact';
import { App } from './app.tsx';

render(<App />, document.getElementById('app')!);
